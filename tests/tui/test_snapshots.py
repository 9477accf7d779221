"""Snapshot tests (pytest-textual-snapshot): the screens a user sees most, at 80x24.

Deterministic by construction: a fixed working directory, platform name and
session id (the system prompt, and so every token count, depends on them),
provider-reported token usage pinned in the scripted replies, no spinners or
cursor blink (`motion=False`), and toasts cleared before the picture is taken.
Refresh with `pytest tests/tui/test_snapshots.py --snapshot-update` after a
deliberate change; the SVGs live in tests/tui/__snapshots__/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.tui.widgets.compaction_card import CompactionCard
from tests.builders import FILLER
from tests.server import Reply
from tests.summary_requests import answer_summaries
from tests.tui.pilot import ready, send, settle, until

SNAP_CWD = Path("/tmp/hermeslite-snapshot/shop")


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    SNAP_CWD.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr("platform.system", lambda: "Linux")
    monkeypatch.setattr("hermeslite.store.sessions._new_id", lambda: "20250101-120000-abcdef")


def looks_as_recorded(snap_compare, make_app, run_before) -> bool:
    """The app at 80x24, once `run_before(pilot)` has run, matches its stored snapshot."""
    app = make_app(cwd=SNAP_CWD, cwd_label="~/shop", motion=False)
    return snap_compare(app, run_before=run_before, terminal_size=(80, 24))


async def finish(pilot) -> None:
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def after_sending(prompt: str):
    """A `run_before` that sends `prompt` and waits for the answer."""

    async def run_before(pilot):
        await ready(pilot)
        await send(pilot, prompt)
        await finish(pilot)

    return run_before


async def compress_after_six_turns(pilot, server) -> None:
    """Six filler turns with pinned usage, then `/compress database schema`."""
    await ready(pilot)
    for n in range(6):
        server.enqueue(Reply.text(f"ok {n}", usage=(2_000 + 500 * n, 3)))
        await send(pilot, f"turn {n}: {FILLER}")
    await send(pilot, "/compress database schema")


def test_empty_start(snap_compare, make_app):
    async def run_before(pilot):
        await ready(pilot)
        await finish(pilot)

    assert looks_as_recorded(snap_compare, make_app, run_before)


def test_conversation_with_a_tool_panel(snap_compare, make_app, scripted_server):
    scripted_server.enqueue(
        Reply.tool_calls(
            [("terminal", {"command": "echo '3 passed in 0.12s'"})],
            text="Let me run the tests.",
        ),
        Reply.text(
            "All **3 tests pass**. Next steps:\n\n1. add a test for `checkout()`\n2. run `ruff`\n",
            chunks=6,
            usage=(2_310, 40),
        ),
    )
    assert looks_as_recorded(snap_compare, make_app, after_sending("do the tests pass?"))


def test_the_warning_bar(snap_compare, make_app, scripted_server):
    scripted_server.enqueue(Reply.text("Noted: the orders table needs an index on `customer_id`.", usage=(44_200, 12)))
    assert looks_as_recorded(snap_compare, make_app, after_sending("the orders query is slow"))


def test_a_compaction_card(snap_compare, make_app, scripted_server):
    answer_summaries(scripted_server)

    async def run_before(pilot):
        await compress_after_six_turns(pilot, scripted_server)
        assert pilot.app.chat.query_one(CompactionCard).state == "done"
        await finish(pilot)

    assert looks_as_recorded(snap_compare, make_app, run_before)


def test_an_opened_compaction_card_shows_a_clean_checkpoint(snap_compare, make_app, scripted_server):
    answer_summaries(
        scripted_server,
        '## Active Task\n> "index the orders table"\n>\n## Goal\nFaster checkout.\n'
        # A bare program name: a command with options would have to be one the six turns ran.
        "Commands, newest first:\n- `pytest` -> exit 0\nFiles:\n- shop/db.py\n"
        "## Completed Actions\n1. added the index\n## Relevant Files\n- shop/db.py\n"
        "## Remaining Work\nNone.",
    )

    async def run_before(pilot):
        await compress_after_six_turns(pilot, scripted_server)
        await pilot.press("ctrl+o")
        await finish(pilot)

    assert looks_as_recorded(snap_compare, make_app, run_before)


def test_messages_typed_during_a_turn_wait_under_the_input(snap_compare, make_app, scripted_server):
    scripted_server.enqueue(Reply.delay(30, Reply.text("too late for the picture")))

    async def run_before(pilot):
        await ready(pilot)
        await send(pilot, "add an index on customer_id", wait=False)
        await until(pilot, lambda: len(scripted_server.requests) == 1)
        await send(pilot, "then run the tests", wait=False)
        await send(pilot, "!pytest -q", wait=False)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert looks_as_recorded(snap_compare, make_app, run_before)
