"""AGENTS.md in the running app: the start-up line, the /context row, a bad file's line, and /init."""

from __future__ import annotations

from hermeslite.tui.screens.text_viewer import TextViewer
from hermeslite.tui.widgets.message import NoteLine, UserMessage
from tests.project_repo import make_repo
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, settle
from tests.tui.screen import screen_text


def notes(app) -> list[str]:
    return [note.text for note in app.chat.query(NoteLine)]


async def test_the_start_up_line_and_the_context_row_name_the_files(make_app, scripted_server, tmp_path):
    repo = make_repo(tmp_path)
    app = make_app(cwd=repo.sub)
    async with app.run_test(size=(80, 40)) as pilot:
        await ready(pilot)
        await settle(pilot)
        tokens = app.host.agent.deps.instructions.tokens()
        assert f"Project instructions: ../AGENTS.md, AGENTS.md (~{tokens} tokens)" in notes(app)
        await send(pilot, "/context")
        assert isinstance(app.screen, TextViewer)
        text = screen_text(app)
        assert "project instructions" in text
        assert "Project instructions (in the system prompt):" in text
        assert "../AGENTS.md" in text
        await pilot.press("escape")
        await settle(pilot)


async def test_an_unreadable_file_is_one_warning_and_the_app_goes_on(make_app, scripted_server, tmp_path):
    repo = make_repo(tmp_path)
    (repo.sub / "AGENTS.md").unlink()
    (repo.sub / "AGENTS.md").mkdir()
    app = make_app(cwd=repo.sub)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await settle(pilot)
        said = notes(app)
        assert "cannot read the instruction file AGENTS.md: a directory, not a file; it is left out" in said
        assert any(n.startswith("Project instructions: ../AGENTS.md (~") for n in said)
        await send(pilot, "hello")
        assert scripted_server.requests and "Root rules" in scripted_server.requests[-1]["messages"][0]["content"]


async def test_init_in_the_app_writes_agents_md_through_write_file(make_app, scripted_server, tmp_path):
    folder = tmp_path / "demo"
    (folder / ".git").mkdir(parents=True)
    app = make_app(cwd=folder)
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "AGENTS.md", "content": "# demo\nRun `make`.\n"})]),
        Reply.text("Done."),
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/init")
        await settle(pilot)
        assert (folder / "AGENTS.md").read_text() == "# demo\nRun `make`.\n"
        shown = [w.text for w in app.chat.query(UserMessage)]
        assert len(shown) == 1 and shown[0].startswith("/init: survey this repository and write AGENTS.md")
        assert notes(app)[-1] == "Wrote AGENTS.md (2 lines): new sessions read it; this one from its next compaction."
