"""The meter, the warning bar, /context and the compaction card show one count, and it moves at once."""

from __future__ import annotations

import re

from hermeslite.tui.format import format_tokens
from hermeslite.tui.widgets.compaction_card import CompactionCard
from hermeslite.tui.widgets.pressure_meter import PressureMeter
from hermeslite.tui.widgets.warning_bar import WarningBar
from tests.builders import FILLER
from tests.server import Reply, estimate_prompt_tokens
from tests.summary_requests import checkpoint, is_summary_request
from tests.tui.pilot import SIZE, ready, send, settle, until
from tests.tui.screen import screen_text

PASTE = "def handler(event):\n    return event\n" * 150  # ~5,600 chars, a pasted file


def provider_counting(server, factor: float) -> None:
    """Usage from a tokenizer that counts `factor` times the server's own count; summaries get a checkpoint."""

    def respond(body):
        text = checkpoint() if is_summary_request(body) else "noted"
        return Reply.text(text, usage=(round(estimate_prompt_tokens(body) * factor), 3))

    server.responder = respond


def meter_reading(app) -> tuple[str, int]:
    """(tokens as shown, percent) from the status-bar meter."""
    match = re.match(r"(\S+) / \S+ tokens · (\d+)%", str(app.query_one(PressureMeter).content))
    assert match, app.query_one(PressureMeter).content
    return match.group(1), int(match.group(2))


async def context_text(pilot) -> str:
    await send(pilot, "/context")
    text = screen_text(pilot.app)
    await pilot.press("escape")
    await settle(pilot)
    return text


async def test_meter_warning_bar_context_and_card_agree(make_app, scripted_server):
    provider_counting(scripted_server, 0.75)
    app = make_app(context_window=12_000, compression={"warn_at": 0.6})
    async with app.run_test(size=(80, 40)) as pilot:
        await ready(pilot)
        bar = app.query_one(WarningBar)
        for n in range(12):
            await send(pilot, f"turn {n}: {FILLER}")
            if bar.is_shown:
                break
        assert bar.is_shown and not app.chat.query(CompactionCard)
        shown, percent = meter_reading(app)
        assert shown == format_tokens(app.host.agent.request_tokens())
        assert f"Context {percent}% of the way to compaction ({shown} / " in str(bar.content)
        text = await context_text(pilot)
        assert re.search(rf"next request +{re.escape(shown)} ", text), text
        last = scripted_server.requests[-1]
        assert re.search(
            rf"counted +{re.escape(format_tokens(round(estimate_prompt_tokens(last) * 0.75)))}  reported by the "
            r"provider",
            text,
        ), text
        assert re.search(r"estimates +×0\.7\d from the last of \d+ provider reports", text), text

        await send(pilot, "/compress")
        card = app.chat.query_one(CompactionCard)
        title = str(card.details.title)
        before, after = re.search(r"~(\S+) → ~(\S+) tokens", title).groups()
        assert before == shown
        shown_after, percent_after = meter_reading(app)
        assert shown_after == after and percent_after < 100 and not bar.is_shown
        text = await context_text(pilot)
        assert re.search(rf"next request +{re.escape(after)} ", text)
        assert "all estimated (rewritten since last report)" in text


async def test_the_meter_moves_as_soon_as_a_long_message_is_sent(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        before = app.host.agent.request_tokens()
        shown_before = meter_reading(app)[0]
        scripted_server.enqueue(Reply.delay(5.0, Reply.text("read it")))
        await send(pilot, PASTE, wait=False)
        await until(pilot, lambda: meter_reading(app)[0] != shown_before, timeout=4.0)
        assert app.host.agent.messages[-1]["role"] == "user"  # the reply has not arrived
        assert app.host.agent.request_tokens() - before >= len(PASTE) // 4
        assert meter_reading(app)[0] == format_tokens(app.host.agent.request_tokens())
        await until(pilot, lambda: app.host.agent.messages[-1].get("content") == "read it", timeout=10)
        await settle(pilot)
