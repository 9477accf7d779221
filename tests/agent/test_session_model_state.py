"""What a session keeps about its model: the model it is recorded with, and its tokenizer calibration.

Both are the session's, so they must not depend on what was open before it: opening a session (an
in-app /resume from an app on another model) records nothing, and a resumed session reads its meter
with what it learned on its own content.
"""

from __future__ import annotations

from dataclasses import replace

from hermeslite.agent.factory import build_agent, build_successor
from hermeslite.agent.model_switch import switch_model
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from tests.agent.helpers import chat
from tests.server import MODEL, Reply, estimate_prompt_tokens
from tests.summary_requests import checkpoint, is_summary_request

OTHER = "openai/other-model"


def provider_counting(server, factor: float) -> None:
    """Usage reports from a tokenizer that counts `factor` times the server's own estimate."""

    def respond(body):
        text = checkpoint() if is_summary_request(body) else "noted"
        return Reply.text(text, usage=(round(estimate_prompt_tokens(body) * factor), 3))

    server.responder = respond


def app_on(model: str, agent, store):
    """A new session in an app whose model is `model` (same server), as the app builds it."""
    cfg = ModelConfig(name=model, api_base=agent.deps.settings.model.api_base, context_window=100_000)
    settings = replace(agent.deps.settings, model=cfg)
    return build_agent(settings, cwd=agent.deps.cwd, interactive=True, llm=LiteLLMClient(cfg), store=store)


async def test_resuming_from_an_app_on_another_model_records_it_only_once_a_request_is_answered(
    make_agent, scripted_server
):
    saved, _ = make_agent()
    await chat(saved, 1)
    store = make_agent.store
    app = app_on(OTHER, saved, store)
    resumed = build_successor(app, app.deps.settings, session_id=saved.session_id, store=store)
    assert resumed.model_name == OTHER
    assert store.get_session(saved.session_id).model == MODEL  # opened, nothing sent: as it was
    assert (await resumed.run_turn("go on")).ok
    assert store.get_session(saved.session_id).model == OTHER  # answered on it: --continue comes back to it


async def test_a_model_switch_is_recorded_when_a_request_on_it_is_answered(make_agent, scripted_server):
    agent, _ = make_agent()
    await chat(agent, 1)
    store, current = make_agent.store, agent.deps.settings.model
    _, other = await switch_model(agent, current, OTHER, max_retries=0)
    assert store.get_session(agent.session_id).model == MODEL  # /model typed, nothing sent yet
    await switch_model(agent, other, MODEL, max_retries=0)  # taken back before sending
    assert (await agent.run_turn("still here")).ok
    assert store.get_session(agent.session_id).model == MODEL
    await switch_model(agent, current, OTHER, max_retries=0)
    assert (await agent.run_turn("and now?")).ok
    assert store.get_session(agent.session_id).model == OTHER


async def test_a_resumed_session_meters_with_its_own_calibration_not_the_previous_sessions(make_agent, scripted_server):
    provider_counting(scripted_server, 1.2)
    saved, _ = make_agent(compression={"memory_flush": False})
    await chat(saved, 2)
    own = saved.size.calibration
    provider_counting(scripted_server, 2.0)  # the session open before /resume learned another ratio
    current, _ = make_agent(compression={"memory_flush": False})
    await chat(current, 2)
    assert abs(own.factor - 1.2) < 0.05 and abs(current.size.calibration.factor - 2.0) < 0.05
    resumed = build_successor(current, current.deps.settings, session_id=saved.session_id, store=make_agent.store)
    resumed.carry_calibration(current)  # as the app and the line chat do after /resume
    assert resumed.size.calibration == own
    fresh = build_successor(resumed, resumed.deps.settings, session_id=None, store=make_agent.store)
    fresh.carry_calibration(resumed)  # /new: no turns of its own yet, so the previous session's
    assert fresh.size.calibration == own


async def test_switching_model_and_back_finds_what_the_session_learned_on_each(make_agent, scripted_server):
    provider_counting(scripted_server, 1.5)
    agent, _ = make_agent(compression={"memory_flush": False})
    await chat(agent, 2)
    learned = agent.size.calibration
    current = agent.deps.settings.model
    _, other = await switch_model(agent, current, OTHER, max_retries=0)
    assert agent.size.calibration.samples == 0  # another tokenizer, nothing learned on it here
    await switch_model(agent, other, MODEL, max_retries=0)
    assert agent.size.calibration == learned
    bare = replace(current, name="test-model")  # the same model without its prefix (litellm would need it)
    agent.switch_model(LiteLLMClient(bare))
    assert agent.size.calibration == learned
