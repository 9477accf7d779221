"""The TUI shows a tool's output as it was: the envelope the model gets is never drawn."""

from __future__ import annotations

from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send
from tests.tui.screen import screen_text


async def test_the_tool_panel_shows_the_plain_output_while_the_model_gets_the_envelope(
    make_app, scripted_server, tmp_path
):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "printf 'deploy ok\\n'"})]), Reply.text("It deployed.")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "deploy it")
        panel = app.chat.query_one(ToolPanel)
        panel.collapsed = False
        await pilot.pause()
        shown = screen_text(app)
        assert "deploy ok" in shown and "tool_output" not in shown
        [result] = [m for m in scripted_server.requests[-1]["messages"] if m["role"] == "tool"]
        assert result["content"] == "<tool_output>\ndeploy ok\n[exit code: 0]\n</tool_output>"
