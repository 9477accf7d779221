"""The input keeps the keyboard; the chat says when there is more below; panels and cards read well."""

from __future__ import annotations

from textual.widgets.collapsible import CollapsibleTitle

from hermeslite.tui.widgets.new_below import NewBelow
from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.server import Reply
from tests.tui.fakes import SlowStreamLLM
from tests.tui.pilot import SIZE, ready, send, settle, until
from tests.tui.screen import screen_text

LONG = "\n\n".join(f"paragraph {n}: " + "words " * 30 for n in range(12))


async def test_clicking_a_panel_toggles_it_and_typing_still_goes_to_the_input(make_app, scripted_server):
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "echo hello"})]), Reply.text("done"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "run it")
        panel = app.chat.query_one(ToolPanel)
        await pilot.click(CollapsibleTitle)
        assert not panel.collapsed and app.focused is app.prompt
        await pilot.press(*"typed", "enter")  # Enter sends; it does not toggle the panel
        await settle(pilot)
        assert not panel.collapsed
        assert scripted_server.requests[-1]["messages"][-1]["content"] == "typed"
        await pilot.press("tab")
        assert app.focused is app.prompt  # no card or panel in the Tab order


async def test_a_printable_key_and_esc_bring_the_focus_back_to_the_input(make_app, scripted_server):
    llm = SlowStreamLLM([f"w{i} " for i in range(400)], delay=0.01)
    app = make_app(llm=llm)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.set_focus(None)
        await pilot.press("h", "i")
        assert app.focused is app.prompt and app.prompt.text == "hi"
        await pilot.press("enter")
        await until(pilot, lambda: app.turns.busy)
        app.set_focus(None)
        await pilot.press("escape")  # first Esc: focus back, the turn goes on
        assert app.focused is app.prompt and app.turns.busy
        await pilot.press("escape")  # second Esc, from the input: cancels
        await settle(pilot)
        assert llm.cancelled and not app.turns.busy


async def test_new_messages_below_appear_when_scrolled_up_and_jump_to_the_end(make_app, scripted_server):
    scripted_server.enqueue(Reply.text(LONG), Reply.delay(2.0, Reply.text("the newest reply")), Reply.text(LONG))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat = app.chat
        await send(pilot, "long one")
        assert chat.scroll_y == chat.max_scroll_y > 0 and not chat.unseen
        await send(pilot, "another", wait=False)
        await pilot.press("pageup", "pageup")  # from the input: scrolls the chat
        assert chat.scroll_y < chat.max_scroll_y
        await settle(pilot)
        assert chat.unseen and "↓ new messages below" in screen_text(app)
        assert "the newest reply" not in screen_text(app)
        await pilot.click(NewBelow)
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y and not chat.unseen
        assert "the newest reply" in screen_text(app) and "new messages below" not in screen_text(app)
        await send(pilot, "and follow")  # at the bottom: keeps following, no marker
        assert chat.scroll_y == chat.max_scroll_y and not chat.unseen
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert chat.scroll_y == 0 and not chat.unseen  # nothing new: no marker
        scripted_server.enqueue(Reply.delay(2.0, Reply.text("sent from the top")))
        await send(pilot, "typed while reading the top", wait=False)
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y  # what the user sends now, they see
        await pilot.press("ctrl+home")
        await settle(pilot)
        assert chat.unseen
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y and not chat.unseen


async def test_the_todo_panel_shows_its_items_not_a_repr(make_app, scripted_server):
    todos = [
        {"id": "1", "content": "write the schema", "status": "in_progress"},
        {"id": "2", "content": "add tests", "status": "pending"},
    ]
    scripted_server.enqueue(Reply.tool_calls([("todo", {"todos": todos})]), Reply.text("planned"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "plan it")
        text = screen_text(app)
        assert "todo  2 items: write the schema, add tests" in text
        assert "{" not in text and "'id'" not in text
        await pilot.click(CollapsibleTitle)
        await pilot.pause()
        assert "write the schema (in_progress)" in screen_text(app)
