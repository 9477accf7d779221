"""Edits in the TUI: the tool panel shows the diff of write_file and patch, and `tools.edits: ask`
shows it in the approval dialog before anything is written."""

from __future__ import annotations

from hermeslite.tui.screens.approval import ApprovalScreen
from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.server import Reply
from tests.tui.pilot import SIZE, answer_approval, ready, send, settle, until
from tests.tui.screen import screen_text

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 61))


def _tool_results(app) -> list[str]:
    return [m["content"] for m in app.host.agent.messages if m.get("role") == "tool"]


async def test_a_patch_panel_shows_its_stat_and_opens_on_the_coloured_diff(make_app, scripted_server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text(ORIGINAL)
    scripted_server.enqueue(
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "line 30\n", "new": "line thirty\nline 30b\n"})]),
        Reply.text("Patched."),
    )
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "edit the notes")
        panel = app.chat.query_one(ToolPanel)
        assert panel.collapsed and "+2 −1" in screen_text(app)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert not panel.collapsed
        body = panel.query_one(".tool-output").render()
        assert "-line 30\n+line thirty\n+line 30b" in body.plain
        assert {span.style for span in body.spans} >= {"green", "red", "cyan"}
        text = screen_text(app)
        assert "+line thirty" in text and "-line 30" in text
    assert (project / "notes.txt").read_text() == ORIGINAL.replace("line 30\n", "line thirty\nline 30b\n")


async def test_a_new_file_panel_says_new(make_app, scripted_server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "hello.py", "content": "print('hi')\nprint('bye')\n"})]),
        Reply.text("Written."),
    )
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "write hello")
        assert "new +2" in screen_text(app)


async def test_ask_shows_the_diff_before_writing_and_a_allows_edits_for_the_session(
    make_app, scripted_server, tmp_path
):
    project = tmp_path / "project"
    project.mkdir()
    target = project / "notes.txt"
    target.write_text(ORIGINAL)
    rewrite = "".join(f"row {n}\n" for n in range(1, 61))  # every line changes: a diff taller than the screen
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "notes.txt", "content": rewrite})]),
        Reply.text("Denied, then."),
        Reply.tool_calls([("write_file", {"path": "notes.txt", "content": rewrite})]),
        Reply.text("Written."),
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "row 1\n", "new": "row one\n"})]),
        Reply.text("Patched without asking."),
    )
    app = make_app(cwd=project, tools={"edits": "ask"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "rewrite the notes", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(0.2)  # not settle(): the turn's worker waits on this dialog
        text = screen_text(app)
        assert "@@ -1,60 +1,60 @@" in text and "-line 1" in text  # the diff, before anything is written
        assert "Allow once (y)" in text and "Deny (n)" in text  # the buttons stay on screen
        assert "Allow edits for this session (a)" in text
        assert target.read_text() == ORIGINAL
        diff_box = app.screen.query_one("#approval-diff")
        assert diff_box.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert diff_box.scroll_y > 0 and isinstance(app.screen, ApprovalScreen)  # scrolling answers nothing
        await answer_approval(pilot, "n")
        await settle(pilot)
        assert target.read_text() == ORIGINAL
        assert "the user denied this edit" in _tool_results(app)[-1]

        await send(pilot, "rewrite them anyway", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await answer_approval(pilot, "a")
        await settle(pilot)
        assert target.read_text() == rewrite
        await send(pilot, "and patch")  # allowed for the session: no dialog this time
        assert not isinstance(app.screen, ApprovalScreen)
        assert target.read_text() == rewrite.replace("row 1\n", "row one\n", 1)
        assert _tool_results(app)[-1].startswith("patched notes.txt")


async def test_the_edit_dialog_fits_a_small_terminal(make_app, scripted_server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text(ORIGINAL)
    scripted_server.enqueue(
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "line 7\n", "new": "line seven\n"})]),
        Reply.text("Done."),
    )
    app = make_app(cwd=project, tools={"edits": "ask"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "patch it", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(0.2)  # not settle(): the turn's worker waits on this dialog
        text = screen_text(app)
        assert "-line 7" in text and "+line seven" in text and "Deny (n)" in text
        await answer_approval(pilot, "y")
        await settle(pilot)
    assert "line seven\n" in (project / "notes.txt").read_text()
