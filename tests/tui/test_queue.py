"""Typing during a turn: messages and commands wait in a queue under the input, in order."""

from __future__ import annotations

import pytest

from hermeslite.tui.screens.text_viewer import TextViewer
from hermeslite.tui.widgets.message import AssistantMessage, NoteLine, UserMessage
from hermeslite.tui.widgets.queued import QueuedMessages
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, settle, until
from tests.tui.screen import screen_text


def sent_user_texts(server) -> list[str]:
    """The user messages of the last request the server received, in order."""
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"]


def chat_order(app) -> list[str]:
    """The chat's user messages and replies, top to bottom, as short labels."""
    labels = []
    for widget in app.chat.children:
        if isinstance(widget, UserMessage):
            labels.append(f"user:{widget.text}")
        elif isinstance(widget, AssistantMessage):
            labels.append(f"reply:{widget.source}")
    return labels


async def type_during_a_turn(pilot, *texts: str) -> None:
    """Send "one" and, while its turn runs, send `texts` one after another."""
    await send(pilot, "one", wait=False)
    await until(pilot, lambda: pilot.app.turns.busy)
    for text in texts:
        await send(pilot, text, wait=False)


async def test_a_message_typed_during_a_turn_is_queued_then_sent_after_it(make_app, scripted_server):
    scripted_server.enqueue(Reply.delay(3.0, Reply.text("first answer")), Reply.text("second answer"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_during_a_turn(pilot, "two")
        await pilot.pause()
        assert app.queued.items == ["two"] and app.prompt.text == ""
        assert "⏸ queued  two" in screen_text(app)
        assert [w.text for w in app.chat.query(UserMessage)] == ["one"]  # not shown as sent yet
        assert len(scripted_server.requests) == 1
        await settle(pilot)
        assert app.queued.items == [] and not app.queued.has_class("-waiting")
        assert sent_user_texts(scripted_server) == ["one", "two"]
        assert chat_order(app) == ["user:one", "reply:first answer", "user:two", "reply:second answer"]
        assert "queued" not in screen_text(app)


async def test_the_queue_survives_esc_and_is_sent_in_order(make_app, scripted_server):
    scripted_server.enqueue(
        Reply.delay(5.0, Reply.text("never shown")), Reply.text("answer two"), Reply.text("answer three")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "one", wait=False)
        await until(pilot, lambda: len(scripted_server.requests) == 1)
        await send(pilot, "two", wait=False)
        await send(pilot, "three", wait=False)
        assert app.queued.items == ["two", "three"]
        await pilot.press("escape")
        await settle(pilot)
        assert app.queued.items == []
        users = [m["content"] for m in app.host.agent.messages if m["role"] == "user"]
        assert users == ["one", "two", "three"]
        assert chat_order(app) == ["user:one", "user:two", "reply:answer two", "user:three", "reply:answer three"]
        notes = [n.text for n in app.chat.query(NoteLine)]
        assert "Cancelled: stopped waiting for the model." in notes
        cancelled = next(w for w in app.chat.children if isinstance(w, NoteLine) and w.text.startswith("Cancelled"))
        assert list(app.chat.children).index(cancelled) < list(app.chat.children).index(app.chat.query(UserMessage)[1])


async def test_up_takes_the_last_queued_message_back_and_a_click_removes_one(make_app, scripted_server):
    scripted_server.enqueue(Reply.delay(4.0, Reply.text("first answer")), Reply.text("edited answer"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_during_a_turn(pilot, "two", "three")
        await pilot.press("up")
        assert app.prompt.text == "three" and app.queued.items == ["two"]
        await pilot.press(*" and four")
        await pilot.click(QueuedMessages, offset=(3, 0))  # removes "two"
        assert app.queued.items == []
        await pilot.press("enter")  # "three and four" goes back in the queue
        assert app.queued.items == ["three and four"]
        await settle(pilot)
        assert sent_user_texts(scripted_server) == ["one", "three and four"]


async def test_commands_that_only_look_run_at_once_and_the_others_wait(make_app, scripted_server):
    scripted_server.enqueue(Reply.delay(4.0, Reply.text("first answer")))  # long enough on a loaded machine
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await type_during_a_turn(pilot, "/help")
        await until(pilot, lambda: isinstance(app.screen, TextViewer))
        assert app.turns.busy and app.queued.items == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.turns.busy  # Esc closed the help, it did not cancel the turn
        await send(pilot, "/new", wait=False)
        await send(pilot, "/nosuch", wait=False)
        assert app.queued.items == ["/new"]
        assert "Unknown command /nosuch." in app.chat.query(NoteLine).last().text
        first = app.host.agent.session_id
        await settle(pilot)
        assert app.host.agent.session_id != first and app.queued.items == []
        assert app.host.agent.deps.store.get_session(first).message_count == 3  # the turn finished first


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_queued_line_and_its_hint_fit_the_width(make_app, scripted_server, size):
    """At 80 columns the 60-character message left the hint cut off the right edge."""
    scripted_server.enqueue(Reply.delay(3.0, Reply.text("first answer")), Reply.text("second answer"))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await type_during_a_turn(pilot, "rename the cache module and update every import that names it " * 3)
        await pilot.pause()
        [line] = [row for row in screen_text(app).splitlines() if "⏸ queued" in row]
        assert line.rstrip().endswith("↑ takes back · click removes")
        assert "rename the cache module" in line
        await settle(pilot)
