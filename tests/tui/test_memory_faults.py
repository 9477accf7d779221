"""A MEMORY.md that is not UTF-8, in the app: one line naming the file, and the file left as it was."""

from __future__ import annotations

from hermeslite.context.untrusted import mark_untrusted
from hermeslite.tui.widgets.message import AssistantMessage, ErrorLine
from tests.memory_files import LATIN1, spoil, unreadable
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, until


async def test_at_start_it_is_one_line_and_the_next_send_starts_once_it_is_fixed(make_app, scripted_server, tmp_path):
    path = spoil(tmp_path / "memory")
    scripted_server.enqueue(Reply.text("hello back"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.chat.query(ErrorLine))
        assert [e.text for e in app.chat.query(ErrorLine)] == [f"✗ Could not start the model: {unreadable(path)}"]
        assert path.read_bytes() == LATIN1
        path.write_text(LATIN1.decode("latin-1"), encoding="utf-8")  # the user saves it as UTF-8
        await send(pilot, "hello")
        assert app.chat.query(AssistantMessage).last().source == "hello back"
    assert "café au lait" in scripted_server.requests[-1]["messages"][0]["content"]  # back in the system prompt


async def test_mid_session_the_view_and_the_tool_say_so_and_nothing_is_written(make_app, scripted_server, tmp_path):
    scripted_server.enqueue(
        Reply.tool_calls([("memory", {"action": "add", "content": "Runs tests with pytest -q"})]), Reply.text("noted")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        path = spoil(tmp_path / "memory")
        await send(pilot, "/memory")
        assert app.chat.query(ErrorLine).last().text == f"✗ /memory: {unreadable(path)}"
        await send(pilot, "remember how tests run")
        assert app.chat.query(AssistantMessage).last().source == "noted"
    [result] = [m for m in scripted_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert result["content"] == mark_untrusted(f"error: {unreadable(path)}")
    assert path.read_bytes() == LATIN1
