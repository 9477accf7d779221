"""Compaction inside the agent: preflight, reactive, manual; memory flush; todo snapshot."""

from __future__ import annotations

import json

from hermeslite.agent import events as ev
from hermeslite.agent.flush import FLUSH_INSTRUCTION
from hermeslite.context.handoff import OPEN
from hermeslite.context.messages import strip_private
from tests.agent.helpers import chat, is_flush_request
from tests.builders import FILLER, assert_valid
from tests.server import Reply
from tests.summary_requests import answer_summaries, checkpoint, is_summary_request, summary_instruction


async def test_preflight_compacts_before_the_request_crosses_the_threshold(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=12_000)
    await chat(agent, 24)
    started = rec.of(ev.CompactionStarted)
    assert started and started[0].trigger == "preflight"
    finished = rec.of(ev.CompactionFinished)[0]
    assert finished.result.changed and not finished.result.aborted
    for body in scripted_server.requests:
        if not is_summary_request(body):
            assert len(json.dumps(body["messages"])) // 4 < 12_000
    assert sum(OPEN in json.dumps(m) for m in agent.messages) == 1
    assert_valid(agent.messages)
    assert agent.pressure().ratio < 1.0


async def test_a_message_too_large_for_the_window_is_reported_once_instead_of_compacting_again(
    make_agent, scripted_server
):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=8_192)
    await chat(agent, 3)
    assert (await agent.run_turn("Summarize this log:\n" + "GET /api/items 200 12ms\n" * 1_500)).ok
    assert [e.trigger for e in rec.of(ev.CompactionStarted)] == ["preflight"]
    [notice] = [n for n in rec.of(ev.Notice) if "Context still too full" in n.text]
    assert "the latest user message alone is ~" in notice.text and "start a new session" in notice.text
    assert_valid(agent.messages)


async def test_reactive_compaction_on_overflow_adopts_the_real_window(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=200_000)
    await chat(agent, 10)
    scripted_server.overflow_above(4_000, limit=9_000)
    finished = await agent.run_turn("one more " + FILLER)
    assert finished.ok, rec.of(ev.ErrorEvent)
    assert [e.trigger for e in rec.of(ev.CompactionStarted)][:1] == ["reactive"]
    assert agent.deps.compressor.context_length == 9_000
    assert any("9,000" in n.text for n in rec.of(ev.Notice))
    assert_valid(agent.messages)


async def test_413_is_treated_as_overflow(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent()
    await chat(agent, 6)
    scripted_server.enqueue(Reply.error(413, "Request Entity Too Large"), Reply.text("made it"))
    finished = await agent.run_turn("go")
    assert finished.ok, rec.of(ev.ErrorEvent)
    assert rec.of(ev.CompactionStarted)[0].trigger == "reactive"


async def test_gives_up_after_three_reactive_compactions(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent()
    await chat(agent, 8)
    scripted_server.overflow_above(10)
    assert not (await agent.run_turn("go")).ok
    assert rec.of(ev.ErrorEvent)[-1].text == (
        "The conversation is too long for openai/test-model's context window. "
        "Compression could not make room: try /compress <focus> or a new session (with -p: run without --continue)."
    )
    assert_valid(agent.messages)


async def test_manual_compress_passes_focus_and_reports(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent()
    await chat(agent, 6)
    result = await agent.compress_now("database schema")
    prompt = summary_instruction(next(b for b in scripted_server.requests if is_summary_request(b)))
    assert '"database schema"' in prompt
    assert result.changed and result.headline().startswith("Compressed:")
    # the same arrow as the compaction card's, in the toast and the headless line alike
    assert " → " in result.headline() and "->" not in result.headline()
    assert rec.of(ev.CompactionStarted)[-1].trigger == "manual"
    assert rec.of(ev.CompactionStarted)[-1].focus == "database schema"
    records = make_agent.store.compactions(agent.session_id)
    assert records[-1].trigger == "manual" and records[-1].focus == "database schema"


async def test_memory_flush_writes_memory_and_leaves_no_trace(make_agent, scripted_server, tmp_path):
    def respond(body):
        if is_summary_request(body):
            return Reply.text(checkpoint())
        if is_flush_request(body):
            return Reply.tool_calls(
                [("memory", {"action": "add", "target": "user", "content": "Prefers tabs over spaces."})]
            )
        return None

    scripted_server.responder = respond
    agent, _rec = make_agent(memory={"flush_min_turns": 3})
    await chat(agent, 4)
    await agent.compress_now()
    user_md = (tmp_path / "memory" / "USER.md").read_text()
    assert "Prefers tabs over spaces." in user_md
    dumped = json.dumps(agent.messages)
    assert FLUSH_INSTRUCTION[:40] not in dumped
    assert "Prefers tabs over spaces." in agent.messages[0]["content"], "system prompt rebuilt with fresh memory"


async def test_flush_skipped_for_short_sessions(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, _rec = make_agent(memory={"flush_min_turns": 6})
    await chat(agent, 3)
    await agent.compress_now()
    assert not any(is_flush_request(b) for b in scripted_server.requests)


async def test_todo_snapshot_present_exactly_once_after_two_compactions(make_agent, scripted_server):
    answer_summaries(scripted_server)
    todos = [
        {"id": "1", "content": "migrate the users table", "status": "in_progress"},
        {"id": "2", "content": "write the rollback script", "status": "pending"},
    ]
    scripted_server.enqueue(Reply.tool_calls([("todo", {"todos": todos})]), Reply.text("noted"))
    agent, _rec = make_agent()
    await chat(agent, 5)
    await agent.compress_now()
    await chat(agent, 3)
    await agent.compress_now()
    holders = [
        m
        for m in agent.messages
        if "migrate the users table" in json.dumps(m) and m["role"] == "user" and "[todo snapshot]" in json.dumps(m)
    ]
    assert len(holders) == 1
    assert json.dumps(agent.messages).count("[todo snapshot]") == 1
    last_user = [m for m in agent.messages if m["role"] == "user"][-1]
    assert last_user is holders[0]
    assert_valid(agent.messages)


async def test_only_the_current_todo_list_is_in_the_transcript_after_it_changed_between_compactions(
    make_agent, scripted_server
):
    answer_summaries(scripted_server)
    first = [
        {"id": "1", "content": "migrate the users table", "status": "in_progress"},
        {"id": "2", "content": "write the rollback script", "status": "pending"},
    ]
    second = [
        {"id": "1", "content": "migrate the users table", "status": "completed"},
        {"id": "2", "content": "write the rollback script", "status": "in_progress"},
        {"id": "3", "content": "announce the maintenance window", "status": "pending"},
    ]
    agent, _rec = make_agent(memory={"flush_min_turns": 1_000})
    scripted_server.enqueue(Reply.tool_calls([("todo", {"todos": first})]), Reply.text("planned"))
    await chat(agent, 5)
    await agent.compress_now()
    scripted_server.enqueue(Reply.tool_calls([("todo", {"todos": second})]), Reply.text("updated"))
    await chat(agent, 5)
    await agent.compress_now()
    wire = json.dumps(strip_private(agent.messages), ensure_ascii=False)
    assert wire.count("[todo snapshot]") == 1
    assert wire.count("write the rollback script") == 1 and "write the rollback script (in_progress)" in wire
    assert wire.count("announce the maintenance window") == 1
    assert "migrate the users table" not in wire, "a finished item from the old list was carried forward"
    assert_valid(agent.messages)


async def test_resumed_session_keeps_compaction_state(make_agent, scripted_server):
    answer_summaries(scripted_server, checkpoint().replace("## Goal\nNone.", "## Goal\nKEEP-THIS-GOAL"))
    agent, _rec = make_agent()
    await chat(agent, 6)
    await agent.compress_now()
    again, _rec2 = make_agent(session_id=agent.session_id)
    assert again.messages[1:] == agent.messages[1:]
    await chat(again, 2)
    answer_summaries(scripted_server)
    await again.compress_now()
    last = [b for b in scripted_server.requests if is_summary_request(b)][-1]
    assert "KEEP-THIS-GOAL" in json.dumps(last["messages"]) and "earlier checkpoint" in summary_instruction(last)


async def test_disabled_compression_is_not_bypassed_on_overflow(make_agent, scripted_server):
    agent, rec = make_agent(compression={"enabled": False})
    await chat(agent, 3)
    scripted_server.overflow_above(10)
    assert not (await agent.run_turn("go")).ok
    assert not rec.of(ev.CompactionStarted)
    assert "compression.enabled: false" in rec.of(ev.ErrorEvent)[-1].text
    assert_valid(agent.messages)
