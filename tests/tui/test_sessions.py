"""Sessions in the app: notes about how one was opened, one writer per session, the model recorded."""

from __future__ import annotations

import json
import sqlite3

import pytest

from hermeslite.context.messages import EXIT_CODE_KEY
from hermeslite.store.sessions import SessionBusy, SessionStore
from hermeslite.tui.widgets.message import NoteLine, UserMessage
from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.session_holder import start_holder
from tests.tui.pilot import SIZE, ready, send


def saved_session(store: SessionStore, *texts: str) -> str:
    sid = store.create_session("openai/test-model", "/w")
    store.append_message(sid, {"role": "system", "content": "sys"})
    for n, text in enumerate(texts):
        store.append_message(sid, {"role": "user" if n % 2 == 0 else "assistant", "content": text})
    store.release(sid)
    return sid


async def test_opening_notes_and_skipped_rows_show_after_the_transcript(make_app):
    sid = saved_session(make_app.store, "kept question", "lost answer", "second question", "second answer")
    conn = sqlite3.connect(make_app.store.path)
    conn.execute("UPDATE messages SET json = 'garbled' WHERE session_id = ? AND seq = 2", (sid,))
    conn.commit()
    conn.close()
    app = make_app(session_id=sid, notes=[f"session {sid} continues on its own model openai/test-model"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert [w.text for w in app.chat.query(UserMessage)] == ["kept question", "second question"]
        notes = [w.text for w in app.chat.query(NoteLine)]
        assert f"session {sid} continues on its own model openai/test-model" in notes
        assert any("skipped 1 unreadable stored message(s) (#3: not valid JSON)" in n for n in notes)


async def test_a_session_open_in_another_process_cannot_be_resumed(make_app):
    sid = saved_session(make_app.store, "question", "answer")
    holder = start_holder(make_app.store.path, sid)
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await send(pilot, f"/resume {sid}")
            error = app.chat.query("ErrorLine").last().text
            assert f"session {sid} is in use by pid {holder.pid} (hermeslite)" in error
            assert app.host.agent.session_id != sid
    finally:
        holder.communicate("", timeout=30)


async def test_leaving_a_session_lets_another_process_open_it(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        first = app.host.agent.session_id
        with SessionStore(make_app.store.path) as other:  # its own lock file handle: as another process
            with pytest.raises(SessionBusy):
                other.claim(first)
            await send(pilot, "/new")
            other.claim(first)  # /new released it


async def test_a_model_switch_is_recorded_for_the_next_continue(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/model openai/other-model")
        sid = app.host.agent.session_id
        assert make_app.store.get_session(sid).model == "openai/test-model"  # nothing sent on it yet
        await send(pilot, "hello")
        info = make_app.store.get_session(sid)
        assert (info.model, info.api_base) == ("openai/other-model", scripted_server.base_url)
        await send(pilot, "/new")
        assert make_app.store.get_session(app.host.agent.session_id).model == "openai/other-model"


async def test_resuming_a_session_recorded_with_another_model_says_so(make_app):
    sid = make_app.store.create_session("anthropic/claude-sonnet-4-5", "/w")
    make_app.store.append_message(sid, {"role": "user", "content": "question"})
    make_app.store.append_message(sid, {"role": "assistant", "content": "answer"})
    make_app.store.release(sid)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, f"/resume {sid}")
        assert app.chat.query(NoteLine).last().text == (
            f"Resumed session {sid}. It was recorded with anthropic/claude-sonnet-4-5 and goes on with "
            "openai/test-model (/model anthropic/claude-sonnet-4-5 switches)."
        )
        assert make_app.store.get_session(sid).model == "anthropic/claude-sonnet-4-5"  # opened, nothing sent
        await send(pilot, "go on")
        assert make_app.store.get_session(sid).model == "openai/test-model"  # answered on it


async def test_a_replayed_command_shows_its_exit_code_with_or_without_the_recorded_key(make_app):
    store = make_app.store
    sid = store.create_session("openai/test-model", "/w")
    store.append_message(sid, {"role": "system", "content": "sys"})
    store.append_message(sid, {"role": "user", "content": "run both"})
    calls = [
        {"id": f"c{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for n, (name, args) in enumerate(
            [("terminal", {"command": "make"}), ("read_file", {"path": "x.py"}), ("terminal", {"command": "make test"})]
        )
    ]
    store.append_message(sid, {"role": "assistant", "content": None, "tool_calls": calls})
    store.append_message(
        sid, {"role": "tool", "tool_call_id": "c0", "name": "terminal", "content": "boom\n[exit code: 2]"}
    )  # saved before the key
    store.append_message(
        sid,
        {
            "role": "tool",
            "tool_call_id": "c1",
            "name": "read_file",
            "content": "sys.exit(1)\n[exit code: 3]",
            EXIT_CODE_KEY: None,
        },
    )  # a file, not a command
    store.append_message(
        sid,
        {"role": "tool", "tool_call_id": "c2", "name": "terminal", "content": "ok\n[exit code: 0]", EXIT_CODE_KEY: 0},
    )
    store.append_message(sid, {"role": "assistant", "content": "done"})
    store.release(sid)
    app = make_app(session_id=sid)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        titles = [str(panel.title) for panel in app.chat.query(ToolPanel)]
        assert len(titles) == 3
        assert "exit 2 · 1 line" in titles[0] and "ok · 2 lines" in titles[1] and "exit 0 · 1 line" in titles[2]
        # marked as they were live: the failed command ✗, the file and the passing command ✓
        assert [title.lstrip()[0] for title in titles] == ["✗", "✓", "✓"]
