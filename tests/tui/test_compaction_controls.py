"""/compress --preview, /uncompress, /summary [edit] and /handoff in the running app."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import AsyncIterator

from textual.pilot import Pilot

from hermeslite.tui.app import HermesApp
from hermeslite.tui.screens.checkpoint import CheckpointEditor, CheckpointViewer
from hermeslite.tui.screens.text_viewer import TextViewer
from hermeslite.tui.widgets.message import NoteLine
from hermeslite.tui.widgets.pressure_meter import PressureMeter
from tests.summary_requests import answer_summaries, is_summary_request
from tests.tui.pilot import SIZE, chat, ready, send, settle, until
from tests.tui.screen import screen_text


@contextlib.asynccontextmanager
async def chatted_app(make_app, server, turns: int = 6) -> AsyncIterator[tuple[HermesApp, Pilot]]:
    """A running app `turns` filler turns into its session, whose summary requests get a checkpoint."""
    answer_summaries(server)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, turns)
        yield app, pilot


def saved(app) -> tuple:
    agent = app.host.agent
    store = agent.deps.store
    return (
        store.load_transcript(agent.session_id),
        store.generation(agent.session_id),
        store.compactions(agent.session_id),
        store.undo_point(agent.session_id),
    )


def copy(messages: list[dict]) -> list[dict]:
    return json.loads(json.dumps(messages))


def last_note(app) -> str:
    return app.chat.query(NoteLine).last().text


async def test_preview_shows_the_numbers_and_changes_nothing(make_app, scripted_server):
    async with chatted_app(make_app, scripted_server) as (app, pilot):
        messages, store_before, requests = copy(app.host.agent.messages), saved(app), len(scripted_server.requests)
        await send(pilot, "/compress --preview database schema")
        assert isinstance(app.screen, TextViewer)
        text = screen_text(app)
        assert "Preview of /compress database schema (nothing was sent or changed)" in text
        assert "Now: 13 messages" in text and "Summarize:" in text and "Keep verbatim: head" in text
        assert "Model call: yes, a summary request" in text
        assert len(scripted_server.requests) == requests and not any(
            is_summary_request(b) for b in scripted_server.requests
        )
        assert app.host.agent.messages == messages and saved(app) == store_before
        await pilot.press("escape")


async def test_uncompress_restores_exactly_also_after_a_restart(make_app, scripted_server):
    async with chatted_app(make_app, scripted_server) as (app, pilot):
        before = copy(app.host.agent.messages)
        await send(pilot, "/compress")
        compacted = len(app.host.agent.messages)
        await chat(pilot, 1, start=6)
        later = copy(app.host.agent.messages[compacted:])
        await send(pilot, "/uncompress")
        assert app.host.agent.messages == before + later
        assert last_note(app).startswith(f"Undid the last compaction: {compacted + 2} → {len(before) + 2} messages")
        meter = app.query_one(PressureMeter)
        assert f"{app.host.agent.request_tokens() / 1000:.1f}k / 50k tokens" in str(meter.content)
        await send(pilot, "/uncompress")
        assert last_note(app).startswith("Nothing undone: nothing to undo")
        await send(pilot, "/compress")
        session = app.host.agent.session_id
        undone_before = copy(app.host.agent.messages[1:])
    restarted = make_app(session_id=session)
    async with restarted.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert len(restarted.host.agent.messages) < len(before) + 2
        await send(pilot, "/uncompress")
        assert restarted.host.agent.messages[1:] == before[1:] + later
        assert undone_before != restarted.host.agent.messages[1:]


async def test_summary_shows_copies_and_edits_the_checkpoint(make_app, scripted_server):
    async with chatted_app(make_app, scripted_server) as (app, pilot):
        await send(pilot, "/compress")
        await send(pilot, "/summary")
        assert isinstance(app.screen, CheckpointViewer)
        shown = app.screen.text
        assert shown.startswith("## Active Task") and "## Active Task" in screen_text(app)
        await pilot.press("c")
        assert app.clipboard == shown
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, CheckpointEditor))
        editor = app.screen
        assert editor.area.text == shown
        editor.area.text = shown.replace("## Goal\nNone.", "## Goal\nShip the parser rewrite (EDITED).")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, CheckpointEditor)
        agent = app.host.agent
        assert "(EDITED)" in agent.deps.compressor.previous_summary
        stored = agent.deps.store.load_transcript(agent.session_id)
        assert any("(EDITED)" in json.dumps(m) for m in stored)
        assert "Checkpoint replaced" in last_note(app)


async def test_an_edit_without_sections_is_refused_and_the_text_kept(make_app, scripted_server):
    async with chatted_app(make_app, scripted_server) as (app, pilot):
        await send(pilot, "/compress")
        messages, store_before = copy(app.host.agent.messages), saved(app)
        await send(pilot, "/summary edit")
        assert isinstance(app.screen, CheckpointEditor)
        app.screen.area.text = "only some notes, no headings"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, CheckpointEditor)
        assert app.screen.area.text == "only some notes, no headings"
        assert "Not saved: the edited checkpoint lacks the section(s) Active Task, Goal" in screen_text(app)
        assert app.host.agent.messages == messages and saved(app) == store_before
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, CheckpointEditor) and last_note(app) == "The checkpoint is unchanged."


async def test_summary_before_any_compaction_says_so(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await send(pilot, "/summary")
        assert last_note(app) == "No checkpoint yet: nothing has been compacted in this session."


async def test_handoff_opens_a_new_session_that_records_its_parent(make_app, scripted_server):
    async with chatted_app(make_app, scripted_server, turns=5) as (app, pilot):
        old = app.host.agent.session_id
        old_saved = saved(app)
        await send(pilot, "/handoff parser")
        new = app.host.agent.session_id
        store = app.host.agent.deps.store
        assert new != old and store.get_session(new).parent_id == old
        assert store.load_transcript(old) == old_saved[0]
        assert [m["role"] for m in app.host.agent.messages] == ["system", "user", "assistant"]
        assert f"Handed off to session {new} with a fresh checkpoint" in last_note(app)
        notes = [n.text for n in app.chat.query(NoteLine)]
        assert f"New session {new}." in notes and not any("Resumed" in n for n in notes)  # it was just made
        await send(pilot, "/sessions")
        assert isinstance(app.screen, TextViewer)
        row = next(line for line in str(app.screen.body).splitlines() if new in line)
        assert row.endswith(f"(handed off from {old})")


async def test_the_new_commands_are_listed_in_help_and_the_palette(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("/compress --preview", "/uncompress", "/summary", "/summary edit", "/handoff"):
            assert title in titles, title
        await send(pilot, "/help")
        text = screen_text(app)
        for line in ("/uncompress", "/summary [edit]", "/handoff [focus]", "--preview"):
            assert line in text, line


async def test_enter_on_a_whole_command_name_runs_it_despite_fuzzy_matches(make_app, scripted_server):
    from hermeslite.tui.widgets.compaction_card import CompactionCard

    async with chatted_app(make_app, scripted_server) as (app, pilot):
        await pilot.press(*"/compress")
        await pilot.pause()
        assert app.prompt.completer.open  # /compress and /uncompress both match
        await pilot.press("enter")
        await settle(pilot)
        assert app.chat.query_one(CompactionCard).state == "done"


async def test_uncompress_typed_during_a_turn_waits_for_it_and_keeps_its_reply(make_app, scripted_server):
    from tests.server import Reply

    async with chatted_app(make_app, scripted_server) as (app, pilot):
        before = copy(app.host.agent.messages)
        await send(pilot, "/compress")
        answer = threading.Event()  # the turn stays in flight until /uncompress is typed, however slow the machine
        scripted_server.enqueue(Reply.held(answer, Reply.text("slow answer")))
        await send(pilot, "one more", wait=False)
        await until(pilot, lambda: app.turns.busy)
        await send(pilot, "/uncompress", wait=False)
        await pilot.pause()
        assert app.queued.items == ["/uncompress"]
        answer.set()
        await settle(pilot)
        assert app.host.agent.messages[: len(before)] == before
        assert [m["content"] for m in app.host.agent.messages[len(before) :]] == ["one more", "slow answer"]
        assert last_note(app).startswith("Undid the last compaction")
