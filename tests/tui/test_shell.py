"""`!command`: the user's own shell command, run through the terminal tool; its output is context."""

from __future__ import annotations

import time

from hermeslite.context.user_command import INTRO
from hermeslite.tui.screens import approval
from hermeslite.tui.screens.approval import ApprovalScreen
from hermeslite.tui.widgets.header import HeaderBar
from hermeslite.tui.widgets.message import UserMessage
from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.server import Reply
from tests.tui.pilot import (
    SIZE,
    answer_approval,
    bang_touch_awaiting_approval,
    escape_the_running_command,
    ready,
    send,
    settle,
    until,
)
from tests.tui.screen import screen_text


async def test_bang_runs_the_command_and_the_next_request_carries_its_output(make_app, scripted_server, tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "!printf 'marker-%s\\n' 4711 > seen.txt; cat seen.txt")
        assert scripted_server.requests == []  # no model call
        assert (tmp_path / "project" / "seen.txt").read_text() == "marker-4711\n"  # it really ran, in the cwd
        panel = app.chat.query_one(ToolPanel)
        assert panel.state == "ok" and not panel.collapsed  # the user ran it to see it
        assert "marker-4711" in screen_text(app) and "exit 0" in screen_text(app)
        assert [w.text for w in app.chat.query(UserMessage)] == ["!printf 'marker-%s\\n' 4711 > seen.txt; cat seen.txt"]
        assert app.query_one(HeaderBar).session_title.startswith("!printf")
        scripted_server.enqueue(Reply.text("It printed marker-4711."))
        await send(pilot, "what did it print?")
        messages = scripted_server.requests[-1]["messages"]
        command, question = messages[-2], messages[-1]
        assert command["role"] == "user" and command["content"].startswith(INTRO)
        assert command["content"].endswith(
            "$ printf 'marker-%s\\n' 4711 > seen.txt; cat seen.txt\n<tool_output>\nmarker-4711\n[exit code: 0]\n</tool_output>"
        )
        assert not any(key.startswith("_") for key in command)  # the private marker never leaves
        assert question == {"role": "user", "content": "what did it print?"}


async def test_bang_follows_the_approval_rules(make_app, scripted_server, outside):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await bang_touch_awaiting_approval(pilot, outside)
        assert "Why: " in screen_text(app) and str(outside) in screen_text(app)
        await answer_approval(pilot, "n")
        await settle(pilot)
        assert not (outside / "flag").exists()  # denied: it never ran
        assert app.chat.query_one(ToolPanel).state == "error"
        last = app.host.agent.messages[-1]
        assert last["role"] == "user" and "the user denied this command" in last["content"]
        await send(pilot, f"!touch {outside}/flag", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await answer_approval(pilot, "y")
        await settle(pilot)
        assert (outside / "flag").exists()  # allowed once: it ran
        assert scripted_server.requests == []


async def test_bang_output_is_capped_like_the_tool(make_app, scripted_server):
    app = make_app(tools={"output_limit": 2_000})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "!seq 1 100000")
        content = app.host.agent.messages[-1]["content"]
        assert "chars omitted" in content and len(content) < 3_000 and content.rstrip().endswith("[exit code: 0]")


async def test_esc_stops_a_bang_command_and_adds_nothing(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        before = len(app.host.agent.messages)
        await send(pilot, "!sleep 30", wait=False)
        await escape_the_running_command(pilot, "sleep 30")
        assert len(app.host.agent.messages) == before and not app.turns.busy


async def test_a_resumed_session_shows_the_command_as_typed_with_its_panel(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "!echo from-before; false")
        first = app.host.agent.session_id
        await send(pilot, "/new")
        await send(pilot, f"/resume {first}")
        assert [w.text for w in app.chat.query(UserMessage)] == ["!echo from-before; false"]
        panel = app.chat.query_one(ToolPanel)
        assert panel.state == "error" and "exit 1" in screen_text(app)
        assert INTRO not in screen_text(app)


async def test_a_session_ending_with_a_bang_command_reopens_without_a_crash_note(make_app, scripted_server):
    """A `!command` never gets a reply: reopening must not say one was lost."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "!echo last-thing-done")
        session = app.host.agent.session_id
    reopened = make_app(session_id=session)
    async with reopened.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "no reply was saved" not in screen_text(reopened)
        assert [m["role"] for m in reopened.host.agent.messages[1:]] == ["user"]
        scripted_server.enqueue(Reply.text("Seen."))
        await send(pilot, "and now?")
        sent = scripted_server.requests[-1]["messages"]
        assert sent[-2]["content"].startswith(INTRO) and "last-thing-done" in sent[-2]["content"]
        assert sent[-1] == {"role": "user", "content": "and now?"}


async def test_bang_runs_inside_the_sandbox(make_app, scripted_server, outside):
    import pytest

    from hermeslite.tools.landlock import abi_version
    from hermeslite.tools.sandbox_notes import BLOCKED

    if not abi_version():
        pytest.skip("no Landlock on this kernel")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        # Inline code is not judged by the policy, so it is not asked about: only the sandbox stops it.
        await send(pilot, f"!python3 -c \"open('{outside}/flag', 'w')\"")
        assert not isinstance(app.screen, ApprovalScreen)
        assert not (outside / "flag").exists()
        content = app.host.agent.messages[-1]["content"]
        assert BLOCKED.search(content) and "[exit code: 1]" in content  # EROFS in namespaces, EACCES without


async def test_escape_at_a_bang_commands_approval_stops_it(make_app, scripted_server, outside):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await bang_touch_awaiting_approval(pilot, outside)
        await answer_approval(pilot, "escape")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalScreen) and not app.turns.turn_running
        assert not (outside / "flag").exists() and scripted_server.requests == []
        notes = [n.text for n in app.chat.query("NoteLine")]
        assert f"Denied: touch {outside}/flag" in notes
        assert f"Cancelled: stopped terminal `touch {outside}/flag` before it ran." in notes
        assert app.chat.query_one(ToolPanel).state == "cancelled"
        assert "cancelled before it ran" in screen_text(app)


class StoppedClock:
    """The approval dialog's clock, held still while keys are typed, so that on a loaded machine
    the gaps between a test's key presses still read as typing; `later` moves it past any gap."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def monotonic(self) -> float:
        return self.now

    def later(self) -> None:
        self.now += 3600


async def test_typing_when_the_approval_opens_answers_nothing(make_app, scripted_server, outside, monkeypatch):
    """The dialog opened under a follow-up being typed: "yes, and a test" held a y and an a."""
    clock = StoppedClock()
    monkeypatch.setattr(approval, "time", clock)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await bang_touch_awaiting_approval(pilot, outside)
        await pilot.press(*"yes, and a test", "enter")
        assert isinstance(app.screen, ApprovalScreen)  # still asking
        assert "Keys typed while this opened were ignored" in screen_text(app)
        clock.later()
        await answer_approval(pilot, "y")
        await settle(pilot)
        assert (outside / "flag").exists()
