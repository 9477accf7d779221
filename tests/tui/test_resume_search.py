"""The /resume picker narrows its list as the user types (title, date, model, id), opens the
highlighted session on Enter and keeps the focus in its search box throughout."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.widgets import Input

from hermeslite.commands.session_table import when
from hermeslite.store.sessions import SessionStore
from hermeslite.tui.screens.session_picker import SessionPicker
from hermeslite.tui.widgets.message import UserMessage
from tests.server import MODEL
from tests.tui.pilot import SIZE, ready, send, settle
from tests.tui.screen import screen_text

CLAUDE = "anthropic/claude-sonnet-4-5"


def three_sessions(store: SessionStore, cwd: Path, api_base: str) -> dict[str, str]:
    """Sessions keyed by their first message; the docs one on another model."""
    ids = {}
    for title, model in [("fix the parser", MODEL), ("write the docs", CLAUDE), ("go on with the parser", MODEL)]:
        sid = store.create_session(model, str(cwd), api_base=api_base)
        store.append_message(sid, {"role": "system", "content": "sys"})
        store.append_message(sid, {"role": "user", "content": title})
        store.append_message(sid, {"role": "assistant", "content": f"done: {title}"})
        ids[title] = sid
        time.sleep(0.01)  # distinct last-active times
    return ids


def listed(app) -> list[str]:
    options = app.screen.query_one("#picker-list")
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


async def open_picker(pilot, app) -> None:
    await ready(pilot)
    await send(pilot, "/resume")
    assert isinstance(app.screen, SessionPicker)
    assert isinstance(app.focused, Input) and app.focused.id == "picker-search"


async def test_typing_narrows_the_list_and_enter_opens_the_one_left(make_app, scripted_server, tmp_path):
    ids = three_sessions(make_app.store, tmp_path, scripted_server.base_url)
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_picker(pilot, app)
        assert set(ids.values()) <= set(listed(app))
        await pilot.press(*"PARSER")  # any case
        assert listed(app) == [ids["go on with the parser"], ids["fix the parser"]]
        await pilot.press(*" fix")  # every word must match
        assert listed(app) == [ids["fix the parser"]]
        assert app.focused.id == "picker-search"
        await pilot.press("enter")
        await settle(pilot)
        assert app.host.agent.session_id == ids["fix the parser"]
        assert [w.text for w in app.chat.query(UserMessage)] == ["fix the parser"]


async def test_the_model_and_the_date_filter_and_arrows_choose_from_the_search_box(make_app, scripted_server, tmp_path):
    ids = three_sessions(make_app.store, tmp_path, scripted_server.base_url)
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_picker(pilot, app)
        await pilot.press(*"claude")
        assert listed(app) == [ids["write the docs"]]
        app.screen.query_one(Input).value = ""
        await pilot.pause()
        day = when(make_app.store.get_session(ids["fix the parser"]).updated_at)[:10]
        await pilot.press(*f"{day} parser")
        assert listed(app) == [ids["go on with the parser"], ids["fix the parser"]]
        await pilot.press("down")
        assert app.focused.id == "picker-search"
        await pilot.press("enter")
        await settle(pilot)
        assert app.host.agent.session_id == ids["fix the parser"]


async def test_no_match_says_so_enter_does_nothing_and_escape_keeps_the_session(make_app, scripted_server, tmp_path):
    three_sessions(make_app.store, tmp_path, scripted_server.base_url)
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        current = app.host.agent.session_id
        await send(pilot, "/resume")
        await pilot.press(*"zebra")
        assert listed(app) == []
        assert "No session matches 'zebra'." in screen_text(app)
        await pilot.press("enter")
        assert isinstance(app.screen, SessionPicker)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SessionPicker)
        assert app.host.agent.session_id == current


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_entry_shows_its_id_whole_at_80_and_120_columns(make_app, scripted_server, tmp_path, size):
    """The id is what `--resume` takes: at 80 columns it was the fact cut off the end of the line."""
    parent = make_app.store.create_session(CLAUDE, str(tmp_path), api_base=scripted_server.base_url)
    make_app.store.append_message(parent, {"role": "user", "content": "the long task"})
    child = make_app.store.create_session(
        "openrouter/anthropic/claude-sonnet-4-5-20250929",
        str(tmp_path),
        api_base=scripted_server.base_url,
        parent_id=parent,
    )
    make_app.store.append_message(child, {"role": "user", "content": "go on with the long task " * 8})
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=size) as pilot:
        await open_picker(pilot, app)
        await pilot.pause()
        text = screen_text(app)
        assert parent in text and child in text
        child_facts = next(line for line in text.splitlines() if child in line)
        assert "…" in child_facts or size[0] > 80  # the other facts gave way for it
        assert "message" in child_facts  # and the most useful of them stayed
