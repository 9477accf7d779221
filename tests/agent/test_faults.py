"""Provider faults seen from the agent: failed turns, retry events, overflow stated only in the text."""

from __future__ import annotations

from hermeslite.agent import events as ev
from hermeslite.agent.turn_repair import INCOMPLETE_REPLY, NO_REPLY
from tests.builders import assert_valid
from tests.server import Reply
from tests.summary_requests import answer_summaries


async def test_a_reply_cut_off_fails_the_turn_and_is_kept_marked_incomplete(make_agent, scripted_server):
    agent, rec = make_agent()
    scripted_server.enqueue(Reply.unfinished("The answer is", chunks=2))
    finished = await agent.run_turn("what is it?")
    assert not finished.ok
    assert [e.text for e in rec.of(ev.ErrorEvent)] == [
        "The provider ended the reply without finishing it (openai/test-model closed the stream without a finish "
        "reason)."
    ]
    assert rec.of(ev.ReplyComplete) == []  # never announced as a finished answer
    saved = make_agent.store.load_transcript(agent.session_id)
    assert saved[-1] == {"role": "assistant", "content": f"The answer is\n\n{INCOMPLETE_REPLY}"}
    assert_valid(agent.messages)


async def test_an_empty_reply_fails_the_turn(make_agent, scripted_server):
    agent, rec = make_agent()
    scripted_server.enqueue(*[Reply.empty(usage_only=True)] * 4)  # the first and its three retries
    assert not (await agent.run_turn("hello?")).ok
    assert rec.of(ev.ErrorEvent)[0].text.startswith("The provider returned an empty reply")
    assert agent.messages[-1] == {"role": "assistant", "content": NO_REPLY}


async def test_each_retry_is_announced_before_it_waits(make_agent, scripted_server):
    agent, rec = make_agent()
    scripted_server.enqueue(
        Reply.error(429, "slow down", headers={"Retry-After": "0.2"}),
        Reply.error(503, "overloaded"),
        Reply.text("made it"),
    )
    assert (await agent.run_turn("hi")).ok
    assert [e.text for e in rec.of(ev.Retrying)] == [
        "retrying (1/3) in 0.2 s: rate limited",
        "retrying (2/3) in 0 s: server error (503)",
    ]
    order = [type(e).__name__ for e in rec.events if isinstance(e, (ev.Retrying, ev.TextDelta))]
    assert order[:3] == ["Retrying", "Retrying", "TextDelta"]


async def test_after_model_switch_retries_are_still_announced(make_agent, scripted_server):
    from hermeslite.config import ModelConfig
    from hermeslite.llm.litellm_client import LiteLLMClient

    agent, rec = make_agent()
    agent.switch_model(
        LiteLLMClient(
            ModelConfig(name="openai/other", api_base=scripted_server.base_url, context_window=50_000),
            retry_base_delay=0.01,
        )
    )
    scripted_server.enqueue(Reply.error(500, "boom"), Reply.text("fine"))
    assert (await agent.run_turn("hi")).ok
    assert [e.reason for e in rec.of(ev.Retrying)] == ["server error (500)"]


async def test_overflow_stated_only_in_the_text_compacts_reactively(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(compression={"memory_flush": False})
    for n in range(6):
        scripted_server.enqueue(Reply.text(f"answer {n}"))
        assert (await agent.run_turn(f"question {n}: " + "detail " * 300)).ok
    scripted_server.enqueue(Reply.stream_error("error code: 413"), Reply.text("made it"))
    finished = await agent.run_turn("go on")
    assert finished.ok, rec.of(ev.ErrorEvent)
    assert rec.of(ev.CompactionStarted)[-1].trigger == "reactive"
    assert agent.messages[-1]["content"] == "made it"
