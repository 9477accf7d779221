"""Long replies: split into segments, frozen when finished, redrawn on resize and theme change."""

from __future__ import annotations

from textual.widgets import Markdown

from hermeslite.tui.widgets.frozen_markdown import FrozenMarkdown
from hermeslite.tui.widgets.message import AssistantMessage
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, until
from tests.tui.screen import screen_text

LONG = "\n\n".join(f"Paragraph {i}: " + "lorem ipsum dolor sit amet " * 12 for i in range(20)) + "\n\nThe end."


async def long_reply_frozen(pilot) -> AssistantMessage:
    """Ask for the long reply and wait until it has finished streaming and been frozen."""
    await send(pilot, "write a lot")
    reply = pilot.app.chat.query_one(AssistantMessage)
    await until(pilot, lambda: not reply.query(Markdown))
    return reply


async def test_a_long_reply_is_kept_whole_and_frozen_when_finished(make_app, scripted_server):
    scripted_server.enqueue(Reply.text(LONG, chunks=60))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        reply = await long_reply_frozen(pilot)
        assert reply.source == LONG
        frozen = reply.query(FrozenMarkdown)
        assert len(frozen) >= 3 and "".join(f.source for f in frozen) == LONG
        assert "The end." in screen_text(app)


async def test_frozen_text_rewraps_after_a_resize(make_app, scripted_server):
    scripted_server.enqueue(Reply.text(LONG, chunks=10))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        reply = await long_reply_frozen(pilot)
        await pilot.resize_terminal(120, 30)
        await until(
            pilot, lambda: reply.query(FrozenMarkdown) and all(f._width > 100 for f in reply.query(FrozenMarkdown))
        )
        # The re-wrapped widgets are laid out before the screen repaints; under load that takes a few frames.
        await until(pilot, lambda: "The end." in screen_text(app))
        widest = max(len(line.rstrip()) for line in screen_text(app).splitlines())
        assert widest > 90


async def test_frozen_text_follows_a_theme_change(make_app, scripted_server):
    scripted_server.enqueue(Reply.text(LONG, chunks=10))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        reply = await long_reply_frozen(pilot)
        for frozen in reply.query(FrozenMarkdown):
            frozen.drawn_in_dark = True
        app.theme = "textual-light"
        await until(
            pilot,
            lambda: (
                reply.query(FrozenMarkdown)
                and not reply.query(Markdown)
                and not any(hasattr(f, "drawn_in_dark") for f in reply.query(FrozenMarkdown))
            ),
        )
        assert reply.source == LONG


async def test_a_pasted_log_is_folded_in_the_chat_and_sent_whole(make_app, scripted_server):
    from hermeslite.tui.widgets.message import UserMessage

    pasted = "\n".join(f"log line {n:03d}" for n in range(330))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, pasted)
        message = app.chat.query_one(UserMessage)
        assert message.size.height < 10
        shown = screen_text(app)
        assert "log line 005" in shown and "log line 006" not in shown and "… 324 more lines" in shown
        assert scripted_server.requests[-1]["messages"][-1]["content"] == pasted
        await pilot.click(message)
        await pilot.pause()
        assert message.size.height > 330
        app.chat.scroll_to_widget(message, animate=False, top=True)
        await pilot.pause()
        await pilot.click(message, offset=(2, 0))
        await pilot.pause()
        assert message.size.height < 10
