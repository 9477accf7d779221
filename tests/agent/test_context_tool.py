"""The `context` tool through the real loop: the model reads the meter's numbers, asks for a compaction
mid-turn and gets it once, after its final reply, with its focus; the guard refuses what would be waste."""

from __future__ import annotations

import json
import re

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent.ledger import schema_tokens
from hermeslite.tools.context_tool import ContextTool
from hermeslite.tools.landlock import abi_version
from tests.agent.helpers import chat
from tests.envelope import sent_tool_results
from tests.hook_scripts import inputs, on, recording
from tests.server import Reply, estimate_prompt_tokens
from tests.summary_requests import answer_summaries, is_summary_request, summary_instruction

ON = {"agent_tool": True, "memory_flush": False}  # no flush request: every queued reply is a turn's
WINDOW = 20_000  # threshold 15,000 (auto: 0.75); a request is refused under 3,750 tokens before the turn


def offered(body: dict) -> set[str]:
    return {tool["function"]["name"] for tool in body.get("tools") or []}


def turn_requests(server) -> list[dict]:
    return [b for b in server.requests if not is_summary_request(b)]


def number(label: str, text: str) -> int:
    found = re.search(rf"{label}: ([\d,]+)", text)
    assert found is not None, text
    return int(found.group(1).replace(",", ""))


async def test_status_reports_the_numbers_the_meter_and_the_store_hold(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, _ = make_agent(context_window=WINDOW, compression=ON)
    await chat(agent, 4)
    assert (await agent.compress_now()).changed
    scripted_server.enqueue(Reply.tool_calls([("context", {"action": "status"})]), Reply.text("noted"))
    assert (await agent.run_turn("how full is the context?")).ok

    [status] = sent_tool_results(scripted_server)
    asked, answered = turn_requests(scripted_server)[-2:]
    # the request that carried the call, as the provider counted it, plus the call itself: between the two
    assert estimate_prompt_tokens(asked) < number("tokens", status) < estimate_prompt_tokens(answered)
    compactable = int(re.search(r"([\d,]+) of them in the conversation before this turn", status)[1].replace(",", ""))
    assert 0 < compactable < number("tokens", status) - agent.schema_tokens()
    threshold = agent.deps.compressor.threshold_tokens
    assert number("compaction threshold", status) == threshold == 15_000
    assert "(75% of the window)" in status and f"of the {WINDOW:,}-token window" in status
    assert number("compactions this session", status) == 1
    originals, chars = make_agent.store.archive_size(agent.session_id)
    assert originals > 0 and f"archive: {originals:,} originals, {chars:,} characters" in status
    assert f"automatic compaction: not due; it runs when the next request reaches {threshold:,}" in status
    assert "requested compaction: none" in status


async def test_compact_asked_mid_turn_runs_once_after_the_final_reply_with_its_focus(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=WINDOW, compression=ON)
    await chat(agent, 10)
    before = agent.request_tokens()
    scripted_server.enqueue(
        Reply.tool_calls([("context", {"action": "compact", "focus": "the parser bug"})]),
        Reply.tool_calls([("context", {"action": "status"})]),
        Reply.tool_calls([("context", {"action": "compact"})]),
        Reply.text("The parser sub-task is done."),
    )
    finished = await agent.run_turn("fix the parser, then tidy up")
    assert finished.ok

    requests = scripted_server.requests
    summaries = [i for i, body in enumerate(requests) if is_summary_request(body)]
    # the summary request is the last one sent: after the request answered with the final reply
    assert summaries == [len(requests) - 1]
    assert '"the parser bug"' in summary_instruction(requests[-1])
    turn_bodies = turn_requests(scripted_server)[-4:]
    tool_texts = [json.dumps(b["messages"][-1]) for b in turn_bodies[1:]]
    assert "Compaction requested: it runs after your final reply of this turn" in tool_texts[0]
    assert 'pending, after the final reply of this turn, focus \\"the parser bug\\"' in tool_texts[1]
    assert "compaction refused: a compaction is already requested for the end of this turn" in tool_texts[2]

    kinds = [type(e) for e in rec.events]
    last_reply = max(i for i, kind in enumerate(kinds) if kind is ev.ReplyComplete)
    [started] = [i for i, kind in enumerate(kinds) if kind is ev.CompactionStarted]
    assert last_reply < started < kinds.index(ev.CompactionFinished) < len(kinds) - 1
    assert kinds[-1] is ev.TurnFinished  # the turn is reported finished once its compaction is done
    event = rec.events[started]
    assert (event.trigger, event.focus) == ("agent", "the parser bug")
    [record] = make_agent.store.compactions(agent.session_id)
    assert (record.trigger, record.focus) == ("agent", "the parser bug")
    assert agent.request_tokens() < before


async def test_the_guard_refuses_a_request_right_after_a_compaction_and_on_a_small_context(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=WINDOW, compression=ON)
    scripted_server.enqueue(Reply.tool_calls([("context", {"action": "compact"})]), Reply.text("ok"))
    assert (await agent.run_turn("hello")).ok
    [small] = sent_tool_results(scripted_server)
    assert small.startswith("error: compaction refused: the conversation before this turn holds 0 tokens")
    assert "under 25%" in small and "this turn is kept whole" in small

    await chat(agent, 10)
    scripted_server.enqueue(
        Reply.tool_calls([("context", {"action": "compact", "focus": "a"})]), Reply.text("sub-task one done")
    )
    assert (await agent.run_turn("first sub-task")).ok
    assert [e.trigger for e in rec.of(ev.CompactionStarted)] == ["agent"]

    # A preflight compaction at the start of the turn: the model's request in the same turn is refused.
    await chat(agent, 3)
    scripted_server.enqueue(Reply.tool_calls([("context", {"action": "compact"})]), Reply.text("ok"))
    assert (await agent.run_turn("a long paste: " + "lorem ipsum dolor sit amet " * 1_300)).ok
    assert [e.trigger for e in rec.of(ev.CompactionStarted)] == ["agent", "preflight"]
    [refused] = sent_tool_results(scripted_server)
    assert refused == (
        "error: compaction refused: the context was already compacted during this user turn; "
        "there is nothing new to compact"
    )


async def test_a_turn_that_ends_without_a_final_reply_drops_the_request(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=WINDOW, compression=ON)
    await chat(agent, 10)
    scripted_server.enqueue(Reply.tool_calls([("context", {"action": "compact"})]), Reply.error(401, "invalid api key"))
    assert not (await agent.run_turn("go on")).ok
    assert not rec.of(ev.CompactionStarted)
    scripted_server.enqueue(Reply.tool_calls([("context", {"action": "status"})]), Reply.text("ok"))
    assert (await agent.run_turn("status?")).ok
    assert "requested compaction: none" in sent_tool_results(scripted_server)[-1]
    assert not rec.of(ev.CompactionStarted)


async def test_off_by_default_and_its_schema_is_counted_when_on(make_agent, scripted_server):
    off, _ = make_agent()
    assert (await off.run_turn("hi")).ok
    on, _ = make_agent(compression={"agent_tool": True})
    assert (await on.run_turn("hi")).ok
    sent_off, sent_on = scripted_server.requests
    assert "context" not in offered(sent_off) and "context" in offered(sent_on)
    [schema] = [t for t in sent_on["tools"] if t["function"]["name"] == "context"]
    assert on.schema_tokens() - off.schema_tokens() == schema_tokens([schema]) > 0
    # the provider counts the schema (the scripted server counts tools as part of the prompt) and the
    # meter's count, calibrated by it, carries the difference
    usage_off, usage_on = (make_agent.store.usage(a.session_id)[0].prompt_tokens for a in (off, on))
    assert usage_on - usage_off == pytest.approx(len(json.dumps(schema)) // 4, abs=2)


@pytest.mark.skipif(abi_version() < 1, reason="plan mode needs Landlock")
async def test_plan_mode_offers_it(make_agent, scripted_server):
    agent, _ = make_agent(compression={"agent_tool": True})
    agent.set_mode("plan")
    assert (await agent.run_turn("plan it")).ok
    tools = offered(scripted_server.requests[-1])
    assert "context" in tools and "write_file" not in tools
    assert ContextTool.writes is False


async def test_a_pre_compact_hook_sees_the_model_s_compaction_as_auto_with_its_focus(
    make_agent, scripted_server, tmp_path
):
    answer_summaries(scripted_server)
    folder = tmp_path / "hooks"
    seen = recording(folder, "seen")
    agent, rec = make_agent(context_window=WINDOW, compression=ON, hooks=on("PreCompact", seen, matcher="auto"))
    await chat(agent, 10)
    scripted_server.enqueue(
        Reply.tool_calls([("context", {"action": "compact", "focus": "the parser bug"})]), Reply.text("done")
    )
    assert (await agent.run_turn("fix the parser")).ok
    [hook_input] = inputs(folder, "seen")
    assert (hook_input["trigger"], hook_input["custom_instructions"]) == ("auto", "the parser bug")
    assert [e.trigger for e in rec.of(ev.CompactionFinished)] == ["agent"]
