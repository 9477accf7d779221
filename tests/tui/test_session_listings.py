"""`hermeslite sessions`, the line chat's /sessions, the app's /sessions and its /resume picker list
the same saved sessions, in the same order, with the same columns."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

from hermeslite.commands.session_table import when
from hermeslite.store.sessions import SessionStore
from hermeslite.store.usage import UsageRecord
from hermeslite.tui.screens.session_picker import SessionPicker
from hermeslite.tui.screens.text_viewer import TextViewer
from tests.cli_process import hermeslite, model_args
from tests.server import MODEL
from tests.tui.pilot import SIZE, ready, send
from tests.tui.screen import screen_text

MARK = "●"


def saved_sessions(store: SessionStore, cwd: Path, api_base: str) -> list[str]:
    """Three sessions, the last a handoff of the first, one with a priced turn; ids newest first."""
    ids = []
    for n, title in enumerate(["fix the parser", "write the docs", "go on with the parser"]):
        sid = store.create_session(MODEL, str(cwd), api_base=api_base, parent_id=ids[0] if n == 2 else None)
        store.append_message(sid, {"role": "system", "content": "sys"})
        store.append_message(sid, {"role": "user", "content": title})
        store.append_message(sid, {"role": "assistant", "content": f"done {n}"})
        ids.append(sid)
        time.sleep(0.01)  # distinct last-active times, so the order is the store's, not chance
    store.record_usage(ids[1], UsageRecord("turn", MODEL, 8_765))
    return ids[::-1]


def copy_database(store: SessionStore, home: Path) -> None:
    """The same sessions where `hermeslite` processes with HERMESLITE_HOME=home look for them."""
    (home / "data").mkdir(parents=True)
    source, target = sqlite3.connect(store.path), sqlite3.connect(home / "data" / "sessions.db")
    source.backup(target)
    source.close()
    target.close()


def unmarked(lines: list[str], current: str) -> list[str]:
    """`lines` without the column of ● that marks the open session, after checking it marks `current`."""
    marked = [line for line in lines if line.startswith(MARK)]
    assert len(marked) == 1 and current in marked[0]
    return [line[len(MARK) + 2 :].rstrip() for line in lines]


def cells_of(line: str) -> list[str]:
    """The cells of a printed table line."""
    return re.split(r"\s{2,}", line.strip())


async def test_every_front_end_lists_the_same_sessions_in_the_same_order(make_app, scripted_server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    newest_first = saved_sessions(make_app.store, project, scripted_server.base_url)
    open_one = newest_first[1]
    home = tmp_path / "home"
    copy_database(make_app.store, home)

    printed = hermeslite(["sessions"], home, project)
    assert printed.returncode == 0, printed.stderr
    table = printed.stdout.splitlines()
    assert table[0].split() == ["ID", "LAST", "ACTIVE", "MSGS", "CONTEXT", "MODEL", "TITLE", "FROM"]
    assert [line.split()[0] for line in table[1:]] == newest_first
    assert "8.8k" in table[2] and table[1].endswith(f"(handed off from {newest_first[2]})")

    chat = hermeslite(["--resume", open_one, *model_args(scripted_server)], home, project, input="/sessions\n/quit\n")
    assert chat.returncode == 0, chat.stderr
    in_chat = chat.stdout.splitlines()[: len(table)]
    assert unmarked(in_chat, open_one) == table

    app = make_app(session_id=open_one, cwd=project)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/sessions")
        assert isinstance(app.screen, TextViewer)
        viewed = str(app.screen.body).splitlines()[: len(table)]
        assert unmarked(viewed, open_one) == table
        await pilot.press("escape")
        await send(pilot, "/resume")
        assert isinstance(app.screen, SessionPicker)
        options = app.screen.query_one("#picker-list")
        picked = [options.get_option_at_index(i) for i in range(options.option_count)]
        assert [option.id for option in picked] == newest_first
        for option, line in zip(picked, table[1:], strict=True):
            title, facts = option.prompt.plain.split("\n")
            mark = MARK if option.id == open_one else " "
            printed = dict(zip(cells_of(table[0]), cells_of(line), strict=False))
            assert title == f"{mark} {printed.pop('TITLE')}"
            assert f"{printed.pop('MSGS')} messages" in facts
            assert all(cell in facts for cell in printed.values() if cell != "-")  # "-": no figure to show
    assert scripted_server.requests == []  # listing asks the model nothing


async def test_the_picker_with_nothing_saved_says_so(make_app, scripted_server, tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.push_screen(SessionPicker([]))
        await pilot.pause()
        assert str(app.screen.query_one("#picker-empty").render()) == "No saved sessions yet."
        assert app.screen.query_one("#picker-list").option_count == 0


def long_sessions(store: SessionStore, cwd: Path, api_base: str) -> list[str]:
    """Two sessions with facts as long as they get (a long model, a context figure, a handoff's
    origin) and a title longer than a narrow picker; ids newest first."""
    model = "anthropic/claude-sonnet-4-5"
    first = store.create_session(model, str(cwd), api_base=api_base)
    time.sleep(0.01)
    second = store.create_session(model, str(cwd), api_base=api_base, parent_id=first)
    for sid in (first, second):
        store.append_message(sid, {"role": "system", "content": "sys"})
        store.append_message(sid, {"role": "user", "content": "refactor the session store and its listing " * 3})
        store.record_usage(sid, UsageRecord("turn", model, 123_456))
    return [second, first]


def picker_lines(app) -> list[str]:
    """The lines drawn inside the picker's border, below its title, its search box and the blank
    line under that."""
    drawn = screen_text(app).splitlines()
    below = drawn[next(i for i, line in enumerate(drawn) if "Resume a session" in line) + 3 :]
    return [line.split("│")[1].rstrip() for line in below if line.count("│") >= 2]


async def test_each_picker_entry_is_two_lines_cut_with_an_ellipsis_at_any_width(make_app, scripted_server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    handoff, first = long_sessions(make_app.store, project, scripted_server.base_url)
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/resume")
        listed = app.screen.rows  # the open session too, marked
        for width in (80, 120, 200):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            lines = picker_lines(app)
            assert lines[2 * len(listed)].strip() == ""  # nothing wrapped onto a third line
            facts = {}
            for index, row in enumerate(listed):
                title, facts[row.id] = lines[2 * index].strip(), lines[2 * index + 1].strip()
                assert facts[row.id].startswith(when(row.updated_at))
                if row.id in (handoff, first):
                    whole = ("refactor the session store and its listing " * 3).strip()
                    assert title == whole if width == 200 else title.startswith(whole[:40]) and title.endswith("…")
                    assert len(title) > 60  # the picker's room, not the table's column, cuts it
                    assert facts[row.id].split(" · ")[1] == "2 messages"
            # the id ends every entry whole, at any width: it is what `--resume` takes
            assert facts[first].endswith(f" · {first}") and facts[handoff].endswith(f" · {handoff}")
            if width >= 120:  # the handoff's origin comes right after the messages
                assert facts[handoff].split(" · ")[2] == f"(handed off from {first})"
                assert facts[first].split(" · ")[2] == "123k context"
            if width == 80:  # the facts after the messages give way to the id, cut with an ellipsis
                for sid in (first, handoff):
                    assert facts[sid].removesuffix(f" · {sid}").endswith("…")
