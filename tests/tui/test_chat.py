"""Chatting in the TUI against the scripted server: streaming, tools, errors, cancellation."""

from __future__ import annotations

import pytest

from hermeslite.tui.screens.approval import ApprovalScreen
from hermeslite.tui.widgets.header import HeaderBar
from hermeslite.tui.widgets.message import AssistantMessage, ErrorLine, NoteLine, UserMessage
from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.server import Reply
from tests.tui.fakes import SlowStreamLLM
from tests.tui.pilot import SIZE, answer_approval, escape_the_running_command, ready, send, settle, until
from tests.tui.screen import Notifications, screen_text


async def test_a_message_gets_a_streamed_markdown_reply(make_app, scripted_server):
    scripted_server.enqueue(Reply.text("Hello **world**, here is a list:\n\n- one\n- two\n", chunks=12))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hi there")
        assert [w.text for w in app.chat.query(UserMessage)] == ["hi there"]
        reply = app.chat.query_one(AssistantMessage)
        assert reply.source == "Hello **world**, here is a list:\n\n- one\n- two\n"
        assert not reply.streaming
        assert scripted_server.requests[-1]["messages"][-1] == {"role": "user", "content": "hi there"}
        assert app.query_one(HeaderBar).session_title == "hi there"
        text = screen_text(app)
        assert "Hello world, here is a list:" in text and "• one" in text
        assert "/ 50k tokens" in text and "window 100k" in text


async def test_a_tool_call_shows_a_panel_that_completes(make_app, scripted_server):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "sleep 3; echo hello from the tool"})], text="Checking."),
        Reply.text("All done."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "run it", wait=False)
        await until(pilot, lambda: app.chat.query(ToolPanel))
        panel = app.chat.query_one(ToolPanel)
        assert panel.state == "running" and panel.tool_name == "terminal"
        assert panel.argument == "sleep 3; echo hello from the tool"
        await settle(pilot)
        assert panel.state == "ok"
        assert "✓ terminal" in screen_text(app) and "exit 0 · 1 line, 19 B" in screen_text(app)
        assert panel.collapsed
        panel.collapsed = False
        await pilot.pause()
        assert "hello from the tool" in screen_text(app)
        assert app.chat.query(AssistantMessage).last().source == "All done."


async def test_a_failing_command_shows_its_exit_code(make_app, scripted_server):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "echo oops; exit 3"})]), Reply.text("It failed.")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "try")
        panel = app.chat.query_one(ToolPanel)
        assert panel.state == "error" and "exit 3" in screen_text(app)


async def test_provider_errors_are_one_line_in_the_chat(make_app, scripted_server):
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided: sk-abc"))
    app = make_app()
    shown = Notifications()
    async with app.run_test(size=SIZE, notifications=True, message_hook=shown) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        errors = app.chat.query(ErrorLine)
        assert len(errors) == 1 and errors[0].text.startswith("✗ ")
        assert "Traceback" not in screen_text(app)
        assert not shown  # the error line is in sight: no toast saying it again over it
        scripted_server.enqueue(Reply.text("back again"))
        await send(pilot, "retry")
        assert app.chat.query(AssistantMessage).last().source == "back again"


async def test_a_retry_counts_its_wait_down_in_the_status_line(make_app, scripted_server):
    scripted_server.enqueue(
        Reply.error(429, "slow down", headers={"Retry-After": "2"}), Reply.delay(1.5, Reply.text("made it"))
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello", wait=False)
        await until(pilot, lambda: app.activity_line.text == "retrying in 2 s (rate limited, attempt 1/3)")
        assert "● retrying in 2 s (rate limited, attempt 1/3)" in screen_text(app)
        await until(pilot, lambda: app.activity_line.text == "retrying in 1 s (rate limited, attempt 1/3)")
        await until(pilot, lambda: app.activity_line.text == "thinking")  # the call went out again
        await settle(pilot)
        assert app.chat.query(AssistantMessage).last().source == "made it"
        assert app.activity == "" and app.activity_line.text == ""


async def test_esc_cancels_while_waiting_for_the_model(make_app, scripted_server):
    scripted_server.enqueue(Reply.delay(3.0, Reply.text("too late")))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "slow one", wait=False)
        await until(pilot, lambda: len(scripted_server.requests) == 1)
        await pilot.press("escape")
        await settle(pilot)
        notes = [n.text for n in app.chat.query(NoteLine)]
        assert "Cancelled: stopped waiting for the model." in notes
        messages = app.host.agent.messages
        assert messages[-1] == {"role": "assistant", "content": "[reply cancelled by the user]"}
        assert not app.turns.busy and app.activity == ""


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])  # Ctrl+C stops a turn first; only a second press quits
async def test_esc_or_ctrl_c_stops_a_streaming_reply_and_keeps_the_partial_text(make_app, key: str):
    llm = SlowStreamLLM([f"word{i} " for i in range(200)], delay=0.02)
    app = make_app(llm=llm)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "talk", wait=False)
        await until(
            pilot, lambda: app.chat.query(AssistantMessage) and "word5" in app.chat.query_one(AssistantMessage).source
        )
        await pilot.press(key)
        await settle(pilot)
        assert llm.cancelled and app.is_running
        reply = app.chat.query_one(AssistantMessage)
        assert "word5" in reply.source and "word199" not in reply.source and not reply.streaming
        note = app.chat.query(NoteLine).last().text
        assert note.startswith("Cancelled: stopped the reply after ") and "partial reply kept" in note
        assert app.host.agent.messages[-1]["content"].endswith("[reply cancelled by the user]")


async def test_esc_kills_a_running_tool(make_app, scripted_server):
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "sleep 30"})]))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "wait a while", wait=False)
        await escape_the_running_command(pilot, "sleep 30")
        tool_results = [m for m in app.host.agent.messages if m.get("role") == "tool"]
        assert tool_results and "cancelled by the user" in tool_results[-1]["content"]


async def test_risky_commands_ask_and_can_be_allowed_for_the_session(make_app, scripted_server, outside):
    touch = ("terminal", {"command": f"touch {outside}/flag"})
    scripted_server.enqueue(
        Reply.tool_calls([touch]),
        Reply.text("denied, fine"),
        Reply.tool_calls([touch]),
        Reply.text("ran it"),
        Reply.tool_calls([touch]),
        Reply.text("ran it again"),
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "touch", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        text = screen_text(app)
        assert "Why: " in text and str(outside) in text and "For this session covers: " in text
        await answer_approval(pilot, "n")
        await settle(pilot)
        results = [m["content"] for m in app.host.agent.messages if m.get("role") == "tool"]
        assert "the user denied this command" in results[-1] and not (outside / "flag").exists()
        await send(pilot, "touch again", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await answer_approval(pilot, "a")
        await settle(pilot)
        assert (outside / "flag").exists()
        (outside / "flag").unlink()
        await send(pilot, "and again")  # no modal this time: allowed for the session
        results = [m["content"] for m in app.host.agent.messages if m.get("role") == "tool"]
        assert "denied" not in results[-1] and "denied" not in results[-2]
        assert "[exit code: 0]" in results[-1] and (outside / "flag").exists()


async def test_escape_in_the_approval_dialog_denies_and_stops_the_turn(make_app, scripted_server, outside):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": f"touch {outside}/flag"})]), Reply.text("never asked for")
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "touch", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await answer_approval(pilot, "escape")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalScreen) and not app.turns.turn_running
        assert not (outside / "flag").exists()
        assert len(scripted_server.requests) == 1  # the model was not asked to go on
        results = [m["content"] for m in app.host.agent.messages if m.get("role") == "tool"]
        assert results == ["error: cancelled by the user before this tool finished"]
        notes = [n.text for n in app.chat.query("NoteLine")]
        assert f"Denied: touch {outside}/flag" in notes
        assert f"Cancelled: stopped terminal `touch {outside}/flag` before it ran." in notes
        assert app.chat.query_one(ToolPanel).state == "cancelled"
        assert "cancelled before it ran" in screen_text(app)


async def test_history_recalls_sent_messages(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first message")
        await send(pilot, "second message")
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.prompt.text == "second message"
        await pilot.press("up")
        assert app.prompt.text == "first message"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"


async def test_shift_enter_and_ctrl_j_add_lines(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        assert app.prompt.text == "a\nb\nc"
        await pilot.press("enter")
        await settle(pilot)
        assert scripted_server.requests[-1]["messages"][-1]["content"] == "a\nb\nc"


async def test_ctrl_c_twice_quits(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_history_survives_a_restart(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "remember me")
    again = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press("up")
        assert again.prompt.text == "remember me"


class FlakyStartLLM(SlowStreamLLM):
    """Fails to start once (say, litellm missing), then works."""

    def __init__(self) -> None:
        super().__init__(["fine ", "now"], delay=0)
        self.attempts = 0

    async def prepare(self) -> int:
        self.attempts += 1
        if self.attempts == 1:
            raise RuntimeError("litellm could not be loaded")
        return self.window


async def test_a_failed_start_is_one_line_and_the_next_send_retries(make_app):
    from hermeslite.tui.widgets.header import HeaderBar

    llm = FlakyStartLLM()
    app = make_app(llm=llm)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.chat.query(ErrorLine))
        assert app.chat.query_one(ErrorLine).text == "✗ Could not start the model: litellm could not be loaded"
        assert app.query_one(HeaderBar).starting
        await send(pilot, "hello")
        assert llm.attempts == 2 and not app.query_one(HeaderBar).starting
        assert app.chat.query(AssistantMessage).last().source == "fine now"
        assert len(app.chat.query(ErrorLine)) == 1


async def test_start_up_warnings_are_shown_in_the_chat(make_app):
    """stderr is hidden behind the app, so a config warning (an untrusted project file) is repeated inside it."""
    warning = (
        "ignored tools.approval from ./hermeslite.yaml: this folder is not trusted; run `hermeslite trust` to use them"
    )
    app = make_app(notices=(warning,))
    async with app.run_test(size=(140, 24)) as pilot:
        await pilot.pause()
        assert f"⚠ {warning}" in screen_text(app)


async def test_a_model_error_is_said_once_and_a_toast_comes_only_for_a_line_out_of_sight(make_app, scripted_server):
    """/model's error was a chat line and a toast covering it; toasts sat over the input and the queue."""
    from hermeslite.tui.screens.text_viewer import TextViewer

    app = make_app()
    shown = Notifications()
    async with app.run_test(size=SIZE, notifications=True, message_hook=shown) as pilot:
        await ready(pilot)
        await send(pilot, "/model nosuchprovider/")
        assert len(app.chat.query(ErrorLine)) == 1 and not shown
        scripted_server.enqueue(Reply.delay(1.0, Reply.error(401, "Incorrect API key provided: sk-abc")))
        await send(pilot, "hello", wait=False)
        await send(pilot, "/help", wait=False)
        await until(pilot, lambda: isinstance(app.screen, TextViewer))
        await until(pilot, lambda: len(app.chat.query(ErrorLine)) == 2)  # behind the viewer: out of sight
        await pilot.pause(0.3)
        assert [n.severity for n in shown] == ["error"]
        rows = screen_text(app).splitlines()
        toast_row = next(i for i, row in enumerate(rows) if shown[0].message[:30] in row)
        assert toast_row < app.prompt.region.y - 1  # above the input and the queued line's row


async def test_an_agent_notice_is_one_chat_line_and_a_toast_only_when_that_line_is_out_of_sight(
    make_app, scripted_server, tmp_path
):
    """Every Notice was a chat line and a toast over it: said twice in view (issue 20, item 7)."""
    from hermeslite.agent.events import Notice
    from hermeslite.tui.screens.text_viewer import TextViewer

    (tmp_path / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    scripted_server.enqueue(Reply.text("read it"))
    app = make_app(cwd=tmp_path)
    shown = Notifications()
    async with app.run_test(size=SIZE, notifications=True, message_hook=shown) as pilot:
        await ready(pilot)
        await send(pilot, "look at @notes.txt")
        notes = [n.text for n in app.chat.query(NoteLine)]
        assert notes.count("attached: notes.txt (2 lines)") == 1
        assert not shown  # the line is in sight: no toast repeating it
        await send(pilot, "/help", wait=False)
        await until(pilot, lambda: isinstance(app.screen, TextViewer))
        app.host.agent.emit(Notice("A Stop hook sends the model back to work: tests fail"))
        await until(pilot, lambda: len(app.chat.query(NoteLine)) == 2)  # drawn behind the viewer
        await settle(pilot)
        assert [n.message for n in shown] == ["A Stop hook sends the model back to work: tests fail"]
