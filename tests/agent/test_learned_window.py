"""A window a provider states in an overflow error outlives the agent and the session that learned it."""

from __future__ import annotations

from hermeslite.agent import events as ev
from hermeslite.agent.breakdown import context_breakdown
from hermeslite.agent.controls import hand_off
from hermeslite.agent.factory import build_agent, build_successor
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from tests.agent.helpers import chat
from tests.server import MODEL
from tests.summary_requests import answer_summaries

LEARNED = "9,000 tokens, learned from the provider's context-length error"


async def learn_window(make_agent, scripted_server):
    """An agent whose provider refused a request and said its window is 9,000 tokens."""
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=200_000)
    await chat(agent, 10)
    scripted_server.overflow_above(4_000, limit=9_000)
    assert (await agent.run_turn("one more")).ok, rec.of(ev.ErrorEvent)
    scripted_server.overflow_above(10**9)
    return agent


def client(scripted_server, name=MODEL, window=200_000):
    return LiteLLMClient(ModelConfig(name=name, api_base=scripted_server.base_url, context_window=window))


async def test_a_session_reopened_starts_from_the_window_its_provider_stated(make_agent, scripted_server):
    agent = await learn_window(make_agent, scripted_server)
    assert make_agent.store.learned_window(MODEL) == 9_000
    sent = len(scripted_server.requests)
    reopened, _ = make_agent(context_window=200_000, session_id=agent.session_id)
    assert reopened.deps.compressor.context_length == 9_000
    assert reopened.pressure().threshold == reopened.deps.compressor.threshold_tokens == 6_750
    assert any(LEARNED in note and "compaction at 6,750" in note for note in reopened.startup_notes())
    assert context_breakdown(reopened).window_source == LEARNED
    assert len(scripted_server.requests) == sent  # known before any request


async def test_another_model_does_not_inherit_the_learned_window_and_switching_back_finds_it(
    make_agent, scripted_server
):
    agent = await learn_window(make_agent, scripted_server)
    agent.switch_model(client(scripted_server, "openai/other-model", 100_000))
    assert agent.deps.compressor.context_length == 100_000
    assert not any("learned" in note for note in agent.startup_notes())
    assert context_breakdown(agent).window_source == ""
    assert make_agent.store.learned_window("openai/other-model") is None
    agent.switch_model(client(scripted_server))
    assert agent.deps.compressor.context_length == 9_000


async def test_a_configured_compression_context_length_wins_over_a_learned_window(make_agent, scripted_server):
    agent = await learn_window(make_agent, scripted_server)
    reopened, _ = make_agent(
        context_window=200_000, session_id=agent.session_id, compression={"context_length": 50_000}
    )
    assert reopened.deps.compressor.context_length == 50_000
    assert not any("learned" in note for note in reopened.startup_notes())


async def test_a_new_session_on_a_client_that_learned_its_window_records_it_too(make_agent, scripted_server):
    agent = await learn_window(make_agent, scripted_server)
    fresh = build_agent(
        agent.deps.settings, cwd=agent.deps.cwd, interactive=False, llm=agent.deps.llm, store=make_agent.store
    )
    assert fresh.session_id != agent.session_id
    assert fresh.deps.compressor.context_length == 9_000


async def test_a_session_saved_before_the_overflow_opens_on_the_learned_window_however_it_is_opened(
    make_agent, scripted_server
):
    """The window is the model's: a session saved before its provider stated it opens on it by /resume
    in the process that learned it and in a new process alike, so it never depends on how it is opened."""
    earlier, _ = make_agent(context_window=200_000)
    await chat(earlier, 1)
    agent = await learn_window(make_agent, scripted_server)
    resumed = build_successor(agent, agent.deps.settings, session_id=earlier.session_id, store=make_agent.store)
    assert resumed.deps.compressor.context_length == 9_000
    assert any(LEARNED in note for note in resumed.startup_notes())
    make_agent.store.release(earlier.session_id)
    in_a_new_process, _ = make_agent(context_window=200_000, session_id=earlier.session_id)  # a fresh client
    assert in_a_new_process.deps.compressor.context_length == 9_000


async def test_a_handoff_from_a_session_that_learned_its_window_carries_it(make_agent, scripted_server):
    agent = await learn_window(make_agent, scripted_server)
    report = await hand_off(agent)
    assert report.session_id is not None, report.text
    opened = build_successor(agent, agent.deps.settings, session_id=report.session_id, store=make_agent.store)
    assert opened.deps.compressor.context_length == 9_000


async def test_the_model_spelled_without_its_provider_prefix_finds_the_learned_window(make_agent, scripted_server):
    agent = await learn_window(make_agent, scripted_server)
    agent.switch_model(client(scripted_server, "openai/other-model", 100_000))
    agent.switch_model(client(scripted_server, "test-model"))  # MODEL is openai/test-model
    assert agent.deps.compressor.context_length == 9_000
