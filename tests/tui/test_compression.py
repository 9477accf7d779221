"""The pressure meter, the warning bar and /compress [focus] in the TUI."""

from __future__ import annotations

import threading

from textual.widgets.collapsible import CollapsibleTitle

from hermeslite.tui.widgets.compaction_card import CompactionCard
from hermeslite.tui.widgets.message import NoteLine
from hermeslite.tui.widgets.pressure_meter import PressureMeter
from hermeslite.tui.widgets.warning_bar import WarningBar
from tests.builders import FILLER
from tests.server import Reply
from tests.summary_requests import answer_summaries, checkpoint, is_summary_request, summary_instruction
from tests.tui.pilot import SIZE, chat, ready, send, settle, until
from tests.tui.screen import Notifications, screen_text


async def test_the_meter_shows_tokens_threshold_percent_and_window(make_app, scripted_server):
    scripted_server.enqueue(Reply.text("ok", usage=(21_050, 3)))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        meter = app.query_one(PressureMeter)
        assert str(meter.content) == "21k / 50k tokens · 42% · ▰▰▰▰▱▱▱▱▱▱ · window 100k"
        assert meter.has_class("-normal") and not app.query_one(WarningBar).is_shown


async def test_warning_bar_appears_at_warn_at_and_clears_after_compress(make_app, scripted_server):
    answer_summaries(scripted_server)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, 6)
        bar, meter = app.query_one(WarningBar), app.query_one(PressureMeter)
        assert not bar.is_shown and bar.styles.display == "none"
        scripted_server.enqueue(Reply.text("noted", usage=(44_000, 5)))  # 88% of the 50k threshold
        await send(pilot, "one more")
        assert bar.is_shown and bar.has_class("-warning") and bar.styles.display == "block"
        assert str(bar.content) == (
            "Context 88% of the way to compaction (44k / 50k tokens) - /compress [focus] to compact now"
        )
        assert meter.has_class("-warning")
        assert "Context 88% of the way to compaction" in screen_text(app)
        scripted_server.enqueue(Reply.text("noted", usage=(48_500, 5)))  # 97%: critical
        await send(pilot, "and another")
        assert bar.has_class("-critical") and not bar.has_class("-warning") and meter.has_class("-critical")
        await send(pilot, "/compress")
        assert not bar.is_shown and bar.styles.display == "none"
        assert meter.has_class("-normal")
        assert "of the way to compaction" not in screen_text(app)


async def test_compress_with_a_focus_reaches_the_summarizer_and_shows_the_card(make_app, scripted_server):
    answer_summaries(scripted_server)
    app = make_app()
    shown = Notifications()
    async with app.run_test(size=SIZE, notifications=True, message_hook=shown) as pilot:
        await ready(pilot)
        await chat(pilot, 6)
        before = len(app.host.agent.messages)
        await send(pilot, "/compress database schema")
        summary_requests = [b for b in scripted_server.requests if is_summary_request(b)]
        assert len(summary_requests) == 1
        assert '"database schema"' in summary_instruction(summary_requests[0])
        card = app.chat.query_one(CompactionCard)
        assert card.state == "done" and card.trigger == "manual" and card.focus_topic == "database schema"
        text = screen_text(app)
        assert f"⟳ compaction · manual · {before} → {len(app.host.agent.messages)} messages" in text
        assert "focus: database schema" not in text and card.details.collapsed  # one line until opened
        await pilot.click(CollapsibleTitle)
        await settle(pilot)
        assert not card.details.collapsed and app.focused is app.prompt
        assert any(n.title == "Compaction (manual)" and n.message.startswith("Compressed:") for n in shown)
        app.clear_notifications()  # toasts sit at the top right, over the card's first lines
        app.chat.scroll_to_widget(card, top=True, animate=False)
        await pilot.pause()
        text = screen_text(app)
        assert "focus: database schema" in text and "Checkpoint (what the model now sees" in text
        assert "Active Task" in text
        records = app.host.agent.deps.store.compactions(app.host.agent.session_id)
        assert records[-1].focus == "database schema" and records[-1].trigger == "manual"


async def test_the_card_shows_the_spinner_text_while_compressing(make_app, scripted_server):
    summarized = threading.Event()  # the summary is held until the card has been read

    def respond(body):
        return Reply.held(summarized, Reply.text(checkpoint())) if is_summary_request(body) else None

    scripted_server.responder = respond
    app = make_app(motion=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, 6)
        await send(pilot, "/compress database schema", wait=False)
        await until(pilot, lambda: app.chat.query(CompactionCard))
        await pilot.pause(0.1)
        assert app.activity == "compressing"
        text = screen_text(app)
        assert "Compressing 13 messages (~" in text and "focus: database schema..." in text
        summarized.set()
        await settle(pilot)
        assert app.chat.query_one(CompactionCard).state == "done"


async def test_a_failed_summary_is_flagged_as_fallback(make_app, scripted_server):
    scripted_server.responder = lambda body: (
        Reply.error(500, "summarizer exploded") if is_summary_request(body) else None
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, 6)
        await send(pilot, "/compress")
        card = app.chat.query_one(CompactionCard)
        assert card.state == "fallback" and "⚠ compaction · manual · " in screen_text(app)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert not card.details.collapsed
        assert "fallback checkpoint built by code" in screen_text(app)


async def test_compress_on_a_short_session_reports_no_change(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await send(pilot, "/compress")
        card = app.chat.query_one(CompactionCard)
        assert card.state == "noop" and "No change" in screen_text(app)


async def test_esc_cancels_a_compression_and_keeps_the_transcript(make_app, scripted_server):
    scripted_server.responder = lambda body: Reply.delay(3.0, Reply.text("late")) if is_summary_request(body) else None
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, 6)
        before = list(app.host.agent.messages)
        await send(pilot, "/compress", wait=False)
        await until(pilot, lambda: any(is_summary_request(b) for b in scripted_server.requests))
        await pilot.press("escape")
        await settle(pilot)
        assert app.host.agent.messages == before
        assert "Cancelled: compression stopped; the transcript is unchanged." in screen_text(app)


async def test_a_paused_compaction_shows_in_the_warning_bar_and_the_chat(make_app, scripted_server):
    long_reply = "The answer goes on at length about the design. " * 920  # ~11k tokens at a 12k threshold
    scripted_server.responder = lambda body: Reply.text(checkpoint() if is_summary_request(body) else long_reply)
    app = make_app(context_window=16_000)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for n in range(5):
            await send(pilot, f"question {n}")
        bar = app.query_one(WarningBar)
        assert bar.is_shown and "automatic compaction paused" in str(bar.content)
        assert "/handoff, a bigger window, or /compress <focus>" in str(bar.content)
        paused = "Automatic compaction is paused: the last 3 compactions were each full again"
        assert any(note.text.startswith(paused) for note in app.chat.query(NoteLine))
        await send(pilot, "/compress")  # a successful manual compaction resumes automatic ones
        assert "paused" not in str(bar.content)


async def test_compress_upto_names_the_turns_on_the_card_and_a_bad_number_is_one_line(make_app, scripted_server):
    answer_summaries(scripted_server)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, 6)
        await send(pilot, "/compress --upto 8")
        assert "/compress --upto: --upto takes a user turn from 1 to 5" in screen_text(app)
        assert not app.chat.query(CompactionCard)
        await send(pilot, "/compress --upto 2")
        card = app.chat.query_one(CompactionCard)
        assert card.state == "done"
        assert "⟳ compaction · manual · turns 1-2 · 13 →" in screen_text(app)
        users = [m["content"] for m in app.host.agent.messages if m["role"] == "user"]
        # Turns 2 to 5 verbatim; the checkpoint is merged into the first of them, before its words.
        assert users[-3:] == [f"turn {n}: {FILLER}".strip() for n in range(3, 6)]
        assert users[-4].startswith("[HANDOFF SUMMARY") and users[-4].endswith(f"turn 2: {FILLER}".strip())
