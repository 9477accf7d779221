"""Escape sequences from the model or a tool are drawn as visible characters, never sent to the terminal."""

from __future__ import annotations

from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.hostile_text import HOSTILE_COMMAND, HOSTILE_REPLY, is_control
from tests.server import Reply
from tests.tui.pilot import ready, send
from tests.tui.screen import drawn_svg, screen_text

# What a terminal would obey: window title, clipboard write, cursor query, clear screen, 8-bit CSI.
OBEYED = ("\x1b]0;", "\x1b]52;", "\x1b[6n", "\x1b[2J", "\x9b")


async def test_a_hostile_reply_and_tool_output_are_drawn_neutralized(make_app, scripted_server):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": HOSTILE_COMMAND})]), Reply.text(HOSTILE_REPLY, chunks=4)
    )
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "show me")
        panel = app.chat.query_one(ToolPanel)
        panel.collapsed = False
        await pilot.pause()
        drawn = drawn_svg(app)  # every character drawn, as text: a sequence in a cell would be in it
        assert [sequence for sequence in OBEYED if sequence in drawn] == []
        text = screen_text(app)
        assert not [c for c in text if is_control(c)]
        assert "clipboard␛]52;c;cm0gLXJmIH4=␇" in text and "query␛[6n" in text
        assert "printf '␛]0;from-tool␇" in text  # the panel's title: the command
        assert "␛]0;from-tool␇ ␛]52;c;aGk=␇ ␛[6n done" in text  # the panel's body: the output
        assert app.host.agent.messages[-1] == {"role": "assistant", "content": HOSTILE_REPLY}
