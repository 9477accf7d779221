"""One count of the next request, through the real litellm path against the scripted server.

The server reports prompt tokens the way a provider does (messages and tool
schemas, in its own tokenizer); the agent's count must follow those reports,
move as soon as a message is appended, and stay the same number in every
place that shows it.
"""

from __future__ import annotations

import re
from itertools import pairwise

from hermeslite.agent import controls
from hermeslite.agent import events as ev
from hermeslite.display import format_tokens
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from tests.agent.helpers import chat
from tests.builders import FILLER
from tests.server import Reply, estimate_prompt_tokens
from tests.summary_requests import checkpoint, is_summary_request

PASTE = "def handler(event):\n    return event\n" * 150  # ~5,600 chars, a pasted file


def provider_counting(server, factor: float) -> None:
    """Usage reports from a tokenizer that counts `factor` times what the server's own count says;
    summary requests get a checkpoint."""

    def respond(body):
        reply_text = checkpoint() if is_summary_request(body) else "noted"
        return Reply.text(reply_text, usage=(round(estimate_prompt_tokens(body) * factor), 3))

    server.responder = respond


def reported(server, index: int, factor: float) -> int:
    return round(estimate_prompt_tokens(server.requests[index]) * factor)


async def test_calibration_brings_the_count_within_a_few_percent_of_what_the_provider_then_reports(
    make_agent, scripted_server
):
    provider_counting(scripted_server, 1.3)
    agent, rec = make_agent()
    assert (await agent.run_turn("hello")).ok
    first_guess = rec.of(ev.PressureChanged)[0].pressure.tokens  # before any report: the plain estimate
    first_count = reported(scripted_server, 0, 1.3)
    assert abs(first_guess - first_count) / first_count > 0.15
    seen = len(rec.events)
    assert (await agent.run_turn(f"please read this:\n{PASTE}")).ok
    predicted = next(e for e in rec.events[seen:] if isinstance(e, ev.PressureChanged)).pressure.tokens
    actual = reported(scripted_server, 1, 1.3)
    assert abs(predicted - actual) / actual < 0.03, (predicted, actual)


async def test_the_count_moves_when_the_message_is_appended_not_when_the_reply_arrives(make_agent, scripted_server):
    agent, rec = make_agent()
    assert (await agent.run_turn("hello")).ok
    before = agent.request_tokens()
    requests_at: list[int] = []
    agent.subscribe(
        lambda event: isinstance(event, ev.PressureChanged) and requests_at.append(len(scripted_server.requests))
    )
    seen = len(rec.events)
    assert (await agent.run_turn(f"please read this:\n{PASTE}")).ok
    first = next(e for e in rec.events[seen:] if isinstance(e, ev.PressureChanged)).pressure.tokens
    assert requests_at[0] == 1  # emitted before the turn's request left
    assert first - before >= len(PASTE) // 4  # and it already carries the paste


async def test_meter_card_and_context_agree_and_compress_lands_on_the_cards_after(make_agent, scripted_server):
    provider_counting(scripted_server, 0.75)  # a local model that counts a quarter less, as the embedded one did
    agent, rec = make_agent(compression={"memory_flush": False})
    await chat(agent, 6)
    last_turn = len(scripted_server.requests) - 1
    size = agent.request_size()
    assert size.reported == reported(scripted_server, last_turn, 0.75)
    assert rec.of(ev.PressureChanged)[-1].pressure.tokens == size.total
    from hermeslite.agent.breakdown import context_breakdown

    assert context_breakdown(agent).total == size.total
    await agent.compress_now()
    started, finished = rec.of(ev.CompactionStarted)[-1], rec.of(ev.CompactionFinished)[-1]
    assert started.tokens == finished.tokens_before == size.total
    assert finished.result.changed and finished.tokens_after < finished.tokens_before
    assert rec.of(ev.PressureChanged)[-1].pressure.tokens == finished.tokens_after == agent.request_tokens()
    assert f"~{finished.tokens_after / 1000:.1f}k tokens" in finished.headline
    # The next request's report lands where the card said it would (the estimate was calibrated).
    assert (await agent.run_turn("after the compaction")).ok
    sent = next(
        i
        for i in range(len(scripted_server.requests) - 1, -1, -1)
        if not is_summary_request(scripted_server.requests[i])
    )
    actual = reported(scripted_server, sent, 0.75)
    appended = estimate_prompt_tokens({"messages": [{"role": "user", "content": "after the compaction"}]}) * 0.75
    assert abs(finished.tokens_after + appended - actual) / actual < 0.03


async def test_undo_and_model_switch_report_the_same_count_as_the_meter(make_agent, scripted_server):
    provider_counting(scripted_server, 1.2)
    agent, rec = make_agent(compression={"memory_flush": False})
    await chat(agent, 6)
    before = agent.request_tokens()
    await agent.compress_now()
    report = controls.uncompress(agent)
    assert report.done
    assert rec.of(ev.PressureChanged)[-1].pressure.tokens == agent.request_tokens()
    assert f"→ ~{agent.request_tokens() / 1000:.1f}k tokens" in report.text
    assert abs(agent.request_tokens() - before) / before < 0.02  # the same transcript, counted alike
    agent.switch_model(LiteLLMClient(ModelConfig(name="openai/other-model", api_base=scripted_server.base_url)))
    assert agent.request_size().calibration.samples == 0  # nothing learned on that model in this session
    assert rec.of(ev.PressureChanged)[-1].pressure.tokens == agent.estimate_request()


async def test_a_handoff_says_what_the_new_sessions_meter_then_shows(make_agent, scripted_server):
    provider_counting(scripted_server, 1.3)
    agent, _ = make_agent(compression={"memory_flush": False})
    await chat(agent, 4)
    before = agent.request_tokens()
    report = await controls.hand_off(agent)
    assert report.session_id is not None, report.text
    after, was = re.search(r"~(\S+) tokens instead of ~(\S+)\.", report.text).groups()
    assert was == format_tokens(before)
    successor, _ = make_agent(session_id=report.session_id)
    successor.carry_calibration(agent)  # as the app and the line chat do for a new session
    assert format_tokens(successor.request_tokens()) == after
    assert successor.request_tokens() > successor.estimate_request() * 1.2  # in the provider's tokens


async def test_a_tokenizer_that_counts_more_still_gets_compactions_that_last(make_agent, scripted_server):
    # 2.5x our estimate (CJK-heavy text, say): budgets sized in raw estimates would leave the
    # request over the threshold by the meter's count, and preflight would compact on every turn.
    provider_counting(scripted_server, 2.5)
    agent, rec = make_agent(context_window=32_000, compression={"memory_flush": False})
    threshold = agent.deps.compressor.threshold_tokens
    compacted_on: list[int] = []
    for n in range(30):
        seen = len(rec.of(ev.CompactionFinished))
        assert (await agent.run_turn(f"turn {n}: {FILLER}")).ok
        for finished in rec.of(ev.CompactionFinished)[seen:]:
            assert finished.result.changed and not finished.result.too_large
            assert finished.tokens_after <= threshold * 0.6, (finished.tokens_after, threshold)
            compacted_on.append(n)
    assert len(compacted_on) >= 2, compacted_on
    assert all(b - a >= 4 for a, b in pairwise(compacted_on)), compacted_on
    assert not agent.deps.compressor.guard.thrashing()
