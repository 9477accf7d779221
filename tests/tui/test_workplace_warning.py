"""Started in the home folder, the app says so once, as a notice and a line in the chat."""

from __future__ import annotations

from pathlib import Path

from tests.tui.pilot import ready


async def test_the_home_as_project_is_said_once(make_app):
    app = make_app(cwd=Path.home())
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.pause()
        notes = [n.text for n in app.chat.query("NoteLine") if "is your home folder" in n.text]
    assert notes == [
        f"⚠ the working directory {Path.home().resolve()} is your home folder: commands may write "
        "anything in it, so destructive commands and code the policy cannot read ask first even in auto "
        "mode; start hermeslite in a project folder"
    ]


async def test_a_project_folder_gets_no_such_line(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert not [n for n in app.chat.query("NoteLine") if "working directory" in n.text]
