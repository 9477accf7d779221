"""/rewind, /undo and /diff in the app: the turn picker, the three choices, the preview to confirm
(an explicit `o` for files changed by hand), the conversation redrawn with the turn's text back in the
input, and the coloured diff view."""

from __future__ import annotations

from hermeslite.tui.screens.diff_viewer import DiffViewer
from hermeslite.tui.screens.rewind import RestoreConfirm, RewindChoice, TurnPicker
from hermeslite.tui.widgets.message import NoteLine
from tests.checkpoint_files import plain_project, tree_state, write
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, settle, until


async def edit(pilot, server, text: str, path: str, content: str) -> None:
    server.enqueue(Reply.tool_calls([("write_file", {"path": path, "content": content})]), Reply.text(f"did {text}"))
    await send(pilot, text)


def notes(app) -> list[str]:
    return [n.text for n in app.chat.query(NoteLine)]


async def test_the_picker_rewinds_files_and_conversation_and_offers_the_turn_again(make_app, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    start = tree_state(project)
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await edit(pilot, scripted_server, "make notes shorter", "notes.txt", "short\n")
        await edit(pilot, scripted_server, "add a helper", "src/helper.py", "x = 1\n")

        await send(pilot, "/rewind")
        assert isinstance(app.screen, TurnPicker)
        options = app.screen.query_one("#picker-list")
        labels = [options.get_option_at_index(i).prompt.plain for i in range(options.option_count)]
        assert "make notes shorter" in labels[0] and "1 file" in labels[0] and "add a helper" in labels[1]
        assert options.highlighted == 1  # the newest turn, the one usually wanted
        await pilot.press("up", "enter")
        await until(pilot, lambda: isinstance(app.screen, RewindChoice))
        assert app.screen.turn == 1
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, RestoreConfirm))
        shown = app.screen.body
        assert "notes.txt" in shown and "src/helper.py" in shown and "(created since: deleted)" in shown
        assert tree_state(project) != start  # nothing restored before the confirmation
        await pilot.press("y")
        await settle(pilot)

        assert tree_state(project) == start
        assert app.prompt.text == "make notes shorter"
        assert not [m for m in app.host.agent.messages if m["role"] == "user"]
        assert any(n.startswith("Rewound to before turn 1: files: 1 written back, 1 deleted") for n in notes(app))


async def test_a_file_changed_by_hand_needs_the_explicit_overwrite_key(make_app, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await edit(pilot, scripted_server, "edit notes", "notes.txt", "agent\n")
        write(project / "notes.txt", "mine\n")
        await send(pilot, "/undo")
        assert isinstance(app.screen, RestoreConfirm)
        assert app.screen.hand_changed == ("notes.txt",)
        assert "Changed by hand" in app.screen.body
        await pilot.press("y")  # not the answer here: only `o` overwrites
        await pilot.pause()
        assert isinstance(app.screen, RestoreConfirm) and (project / "notes.txt").read_text() == "mine\n"
        await pilot.press("o")
        await settle(pilot)
        assert (project / "notes.txt").read_bytes() == b"line one\r\nline two\r\n"
        assert any(n.startswith("Undid turn 1") for n in notes(app))


async def test_cancelling_restores_nothing(make_app, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await edit(pilot, scripted_server, "edit notes", "notes.txt", "agent\n")
        await send(pilot, "/rewind 1 code")
        assert isinstance(app.screen, RestoreConfirm)
        await pilot.press("escape")
        await settle(pilot)
        assert (project / "notes.txt").read_text() == "agent\n"
        assert "Nothing restored." in notes(app)


async def test_the_diff_view_colours_added_and_removed_lines(make_app, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    app = make_app(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await edit(pilot, scripted_server, "change main", "src/app.py", "def main():\n    return 3\n")
        await send(pilot, "/diff")
        assert isinstance(app.screen, DiffViewer)
        content = app.screen.query_one("#diff-text").render()
        styled = {content.plain[span.start : span.end].rstrip("\n"): str(span.style) for span in content.spans}
        assert styled["-    return 1"] == "red" and styled["+    return 3"] == "green"
        assert styled["diff --git a/src/app.py b/src/app.py"] == "bold"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, DiffViewer)


async def test_summarize_up_to_here_compacts_through_the_chosen_turn(make_app, scripted_server):
    from hermeslite.context.handoff import split_handoff
    from hermeslite.tui.widgets.compaction_card import CompactionCard
    from tests.builders import FILLER
    from tests.summary_requests import answer_summaries
    from tests.tui.pilot import chat
    from tests.tui.screen import screen_text

    answer_summaries(scripted_server)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, 6)  # session turns 1-6 hold "turn 0" .. "turn 5"
        await send(pilot, "/compress --upto 2")  # the transcript now counts "turn 2" as its first user turn

        await send(pilot, "/rewind")
        await pilot.press("up", "enter")  # session turn 5: "turn 4"
        await until(pilot, lambda: isinstance(app.screen, RewindChoice))
        assert app.screen.turn == 5
        await pilot.press("s")
        await settle(pilot)
        cards = app.chat.query(CompactionCard)
        assert len(cards) == 2 and cards.last().state == "done", notes(app)
        assert "⟳ compaction · manual · turns 1-3 ·" in screen_text(app)
        users = [m for m in app.host.agent.messages if m["role"] == "user"]
        # "turn 2" to "turn 4" went into the summary, merged into the message of "turn 5", kept verbatim
        assert len(users) == 1 and split_handoff(users[0])[1].strip() == f"turn 5: {FILLER}".strip()

        await send(pilot, "/rewind")
        await pilot.press("home", "enter")  # session turn 1, summarized long ago
        await until(pilot, lambda: isinstance(app.screen, RewindChoice))
        await pilot.press("s")
        await settle(pilot)
        assert "Cannot summarize up to turn 1: turn 1 is not in the conversation as it is now" in notes(app)[-1]
        assert len(app.chat.query(CompactionCard)) == 2

        await send(pilot, "/rewind")
        await pilot.press("end", "enter")  # the latest turn: always kept whole
        await until(pilot, lambda: isinstance(app.screen, RewindChoice))
        await pilot.press("s")
        await settle(pilot)
        assert notes(app)[-1] == (
            "Cannot summarize up to turn 6: turn 6 is the latest turn, and a compaction always keeps the latest turn whole."
        )
        assert len(app.chat.query(CompactionCard)) == 2
