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
from tests.server import Reply
from tests.tui.conftest import answer_summaries, ready, send, settle, until

SNAP_CWD = Path("/tmp/hermeslite-snapshot/shop")
FILLER = "lorem ipsum dolor sit amet " * 60


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    SNAP_CWD.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr("platform.system", lambda: "Linux")
    monkeypatch.setattr("hermeslite.store.sessions._new_id", lambda: "20250101-120000-abcdef")


def snap_app(make_app, **kwargs):
    return make_app(cwd=SNAP_CWD, cwd_label="~/shop", motion=False, **kwargs)


async def finish(pilot) -> None:
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_empty_start(snap_compare, make_app):
    async def run_before(pilot):
        await ready(pilot)
        await finish(pilot)

    assert snap_compare(snap_app(make_app), run_before=run_before, terminal_size=(80, 24))


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

    async def run_before(pilot):
        await ready(pilot)
        await send(pilot, "do the tests pass?")
        await finish(pilot)

    assert snap_compare(snap_app(make_app), run_before=run_before, terminal_size=(80, 24))


def test_the_warning_bar(snap_compare, make_app, scripted_server):
    scripted_server.enqueue(Reply.text("Noted: the orders table needs an index on `customer_id`.", usage=(44_200, 12)))

    async def run_before(pilot):
        await ready(pilot)
        await send(pilot, "the orders query is slow")
        await finish(pilot)

    assert snap_compare(snap_app(make_app), run_before=run_before, terminal_size=(80, 24))


def test_a_compaction_card(snap_compare, make_app, scripted_server):
    answer_summaries(scripted_server)

    async def run_before(pilot):
        await ready(pilot)
        for n in range(6):
            scripted_server.enqueue(Reply.text(f"ok {n}", usage=(2_000 + 500 * n, 3)))
            await send(pilot, f"turn {n}: {FILLER}")
        await send(pilot, "/compress database schema")
        assert pilot.app.chat.query_one(CompactionCard).state == "done"
        await finish(pilot)

    assert snap_compare(snap_app(make_app), run_before=run_before, terminal_size=(80, 24))


def test_an_opened_compaction_card_shows_a_clean_checkpoint(snap_compare, make_app, scripted_server):
    answer_summaries(
        scripted_server,
        '## Active Task\n> "index the orders table"\n>\n## Goal\nFaster checkout.\n'
        "Commands, newest first:\n- `pytest -q` -> exit 0\nFiles:\n- shop/db.py\n"
        "## Completed Actions\n1. added the index\n## Relevant Files\n- shop/db.py\n"
        "## Remaining Work\nNone.",
    )

    async def run_before(pilot):
        await ready(pilot)
        for n in range(6):
            scripted_server.enqueue(Reply.text(f"ok {n}", usage=(2_000 + 500 * n, 3)))
            await send(pilot, f"turn {n}: {FILLER}")
        await send(pilot, "/compress database schema")
        await pilot.press("ctrl+o")
        await finish(pilot)

    assert snap_compare(snap_app(make_app), run_before=run_before, terminal_size=(80, 24))


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

    assert snap_compare(snap_app(make_app), run_before=run_before, terminal_size=(80, 24))
