"""The todo pane: the list the model writes with the todo tool, through the real loop, stays on
screen above the input while items are open and goes when all are done; `display.todo_pane`
and Ctrl+T decide otherwise; the input keeps the focus."""

from __future__ import annotations

from tests.server import Reply
from tests.tui.pilot import ready, send, settle

PLAN = [
    {"id": "1", "content": "read the parser", "status": "in_progress"},
    {"id": "2", "content": "fix the tokenizer", "status": "pending"},
]
DONE = [{"id": "1", "status": "completed"}, {"id": "2", "status": "completed"}]


def todo_turn(items: list[dict], merge: bool = False) -> list[Reply]:
    return [Reply.tool_calls([("todo", {"todos": items, "merge": merge})]), Reply.text("noted")]


async def test_the_pane_shows_open_todos_and_goes_when_all_are_done(make_app, scripted_server):
    scripted_server.enqueue(*todo_turn(PLAN), *todo_turn(DONE, merge=True))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert not app.todo_pane.display
        await send(pilot, "plan it")
        assert app.todo_pane.display
        drawn = str(app.todo_pane.render())
        assert "▶ read the parser" in drawn and "○ fix the tokenizer" in drawn and "0/2 done" in drawn
        assert app.focused is app.prompt
        assert app.prompt.region.bottom <= app.screen.size.height  # the input is still on screen
        await pilot.press("ctrl+t")
        assert not app.todo_pane.display
        await pilot.press("ctrl+t")
        assert app.todo_pane.display
        await send(pilot, "finish it")
        assert not app.todo_pane.display
        assert app.focused is app.prompt


async def test_off_hides_the_pane_until_ctrl_t(make_app, scripted_server):
    scripted_server.enqueue(*todo_turn(PLAN))
    app = make_app(display={"todo_pane": "off"})
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "plan it")
        await settle(pilot)
        assert app.host.agent.todo_text().count("[") == 2  # the list was written
        assert not app.todo_pane.display
        await pilot.press("ctrl+t")
        assert app.todo_pane.display
        assert app.focused is app.prompt


async def test_on_keeps_a_finished_list_shown(make_app, scripted_server):
    scripted_server.enqueue(*todo_turn([{**item, "status": "completed"} for item in PLAN]))
    app = make_app(display={"todo_pane": "on"})
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "plan it")
        assert app.todo_pane.display
        assert "2/2 done" in str(app.todo_pane.render())


async def test_new_hides_the_pane_and_resume_brings_the_open_list_back(make_app, scripted_server):
    scripted_server.enqueue(*todo_turn(PLAN))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "plan it")
        planned = app.host.agent.session_id
        assert app.todo_pane.display
        await send(pilot, "/new")
        assert not app.todo_pane.display
        await send(pilot, f"/resume {planned}")
        assert app.host.agent.session_id == planned
        assert app.todo_pane.display and "▶ read the parser" in str(app.todo_pane.render())
        assert app.focused is app.prompt
