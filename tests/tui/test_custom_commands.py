"""Custom commands and skills in the running app: the dropdown, the palette and /help offer the
command files, running one sends its expanded text to the model (the scripted server receives it),
a name a built-in has is refused in one line, and /skills lists the skills."""

from __future__ import annotations

from pathlib import Path

from hermeslite.tui.screens.text_viewer import TextViewer
from hermeslite.tui.widgets.message import NoteLine, UserMessage
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, settle, until
from tests.tui.screen import screen_text
from tests.tui.test_queue import sent_user_texts, type_during_a_turn

REVIEW = "---\ndescription: Review a file for bugs\nargument-hint: <file> [focus]\n---\nReview $1, looking at $2.\n"


def project_with(tmp_path: Path, **files: str) -> Path:
    """The app's working directory with `.hermeslite/commands/<name>.md` for each keyword (`__` is a folder)."""
    project = tmp_path / "project"
    for name, text in files.items():
        path = project / ".hermeslite" / "commands" / (name.replace("__", "/") + ".md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return project


async def test_the_dropdown_offers_a_command_file_and_running_it_sends_its_text(make_app, scripted_server, tmp_path):
    project = project_with(tmp_path, review=REVIEW)
    scripted_server.enqueue(Reply.text("Looks fine."))
    app = make_app(cwd=project)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"/rev")
        assert app.prompt.completer.open
        assert "/review <file> [focus]  Review a file for bugs (project)" in screen_text(app)
        await pilot.press("tab")
        assert app.prompt.text == "/review "
        await send(pilot, '/review src/app.py "error handling"')
        expanded = "Review src/app.py, looking at error handling."
        assert sent_user_texts(scripted_server) == [expanded]
        assert [w.text for w in app.chat.query(UserMessage)] == [expanded]  # what the model got, shown as sent
        assert "Looks fine." in screen_text(app)


async def test_a_folder_names_the_command_and_help_and_the_palette_list_it(make_app, scripted_server, tmp_path):
    project = project_with(tmp_path, git__commit="Write a commit message for the staged changes.")
    app = make_app(cwd=project)
    async with app.run_test(size=(110, 60)) as pilot:
        await ready(pilot)
        palette = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert palette["/git:commit"] == "Write a commit message for the staged changes. (project)"
        await send(pilot, "/help")
        text = screen_text(app)
        assert "Custom commands (what they expand to is sent as your message)" in text
        assert "/git:commit" in text and "Write a commit message for the staged changes. (project)" in text
        await pilot.press("escape")
        await send(pilot, "/git:commit")
        assert sent_user_texts(scripted_server) == ["Write a commit message for the staged changes."]


async def test_a_name_a_built_in_command_has_is_refused_in_one_line(make_app, scripted_server, tmp_path):
    project = project_with(tmp_path, help="Tell me a joke.", exit="Leave now.", review=REVIEW)
    app = make_app(cwd=project)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        notes = [n.text for n in app.chat.query(NoteLine)]
        for name in ("exit", "help"):
            line = f"⚠ /{name} from .hermeslite/commands/{name}.md is not offered: /{name} is a built-in command"
            assert notes.count(line) == 1
        await send(pilot, "/help")
        assert isinstance(app.screen, TextViewer) and scripted_server.requests == []  # the built-in ran
        await pilot.press("escape")
        await pilot.press(*"/revi")
        assert app.prompt.completer.open  # the other file still loaded


async def test_a_bad_command_file_is_one_line_and_the_app_goes_on(make_app, scripted_server, tmp_path):
    project = project_with(tmp_path, broken="---\ndescription: [unclosed\n  x: y\n---\nbody", review=REVIEW)
    app = make_app(cwd=project)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        bad = [n.text for n in app.chat.query(NoteLine) if "broken.md" in n.text]
        assert len(bad) == 1 and bad[0].startswith(
            "⚠ custom command .hermeslite/commands/broken.md is skipped: its front matter is not valid YAML (line "
        )
        await send(pilot, "/review a.py")
        assert sent_user_texts(scripted_server) == ["Review a.py, looking at ."]


async def test_a_custom_command_typed_during_a_turn_waits_its_turn(make_app, scripted_server, tmp_path):
    project = project_with(tmp_path, review=REVIEW)
    scripted_server.enqueue(Reply.delay(2.0, Reply.text("first answer")), Reply.text("second answer"))
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_during_a_turn(pilot, "/review b.py")
        await pilot.pause()
        assert app.queued.items == ["/review b.py"] and len(scripted_server.requests) == 1
        await settle(pilot)
        assert sent_user_texts(scripted_server) == ["one", "Review b.py, looking at ."]


async def test_a_mistyped_custom_command_suggests_it(make_app, scripted_server, tmp_path):
    project = project_with(tmp_path, deploy="Deploy to $1.")
    app = make_app(cwd=project)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/deplyo staging")
        assert (
            app.chat.query(NoteLine).last().text
            == "Unknown command /deplyo. Did you mean /deploy? Type /help for the list."
        )
        assert scripted_server.requests == []


async def test_skills_lists_the_skills_and_the_faults(make_app, tmp_path):
    project = tmp_path / "project"
    good = project / ".hermeslite" / "skills" / "lint"
    good.mkdir(parents=True)
    (good / "SKILL.md").write_text("---\nname: lint\ndescription: Run the linters.\n---\nRun ruff.\n", encoding="utf-8")
    (project / ".hermeslite" / "skills" / "empty").mkdir()
    (project / ".hermeslite" / "skills" / "empty" / "SKILL.md").write_text("no front matter", encoding="utf-8")
    app = make_app(cwd=project)
    async with app.run_test(size=(130, 40)) as pilot:
        await ready(pilot)
        notes = [n.text for n in app.chat.query(NoteLine)]
        assert any("skill .hermeslite/skills/empty/SKILL.md is skipped: it has no front matter" in n for n in notes)
        await send(pilot, "/skills")
        await until(pilot, lambda: isinstance(app.screen, TextViewer))
        text = screen_text(app)
        assert "lint (project) · .hermeslite/skills/lint/SKILL.md" in text and "Run the linters." in text
        assert "Problems found when the session started" in text
