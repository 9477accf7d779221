"""Prompt caching as the TUI shows it: the start-up note, the compaction card's cost and /context's usage.

The app talks to the fake Anthropic server through litellm's real Anthropic
path, so the numbers on screen are the ones its prompt cache billed.
"""

from __future__ import annotations

import re

import pytest

from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.tui.screens.text_viewer import TextViewer
from hermeslite.tui.widgets.compaction_card import CompactionCard
from hermeslite.tui.widgets.message import NoteLine
from tests.fake_anthropic import FakeAnthropic, Reply
from tests.summary_requests import answer_summaries, checkpoint, is_summary_request
from tests.tui.pilot import SIZE, chat, ready, send, settle
from tests.tui.screen import screen_text

KEY_ENV = "HERMESLITE_TEST_ANTHROPIC_KEY"


@pytest.fixture
def claude(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> LiteLLMClient:
    monkeypatch.setenv(KEY_ENV, "test-key")
    fake_anthropic.responder = lambda body: Reply.say(checkpoint()) if is_summary_request(body) else None
    model = ModelConfig(
        name="anthropic/claude-sonnet-4-5",
        api_base=fake_anthropic.base_url,
        api_key_env=KEY_ENV,
        context_window=100_000,
    )
    return LiteLLMClient(model, max_retries=0)


def notes(app) -> list[str]:
    return [note.text for note in app.chat.query(NoteLine)]


async def test_claude_gets_a_caching_note_a_card_cost_and_session_usage(make_app, claude, fake_anthropic):
    app = make_app(llm=claude)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert "Prompt caching: on (Claude via anthropic; system prompt + last 3 messages marked, 5m TTL)" in notes(app)
        await chat(pilot, 6)
        await send(pilot, "/compress")
        card = app.chat.query_one(CompactionCard)
        assert card.state == "done"
        await pilot.press("ctrl+o")  # the cost is among the details of the one-line card
        await settle(pilot)
        shown = re.search(r"cost \$(\d+\.\d{4}) · (\d+)% of [\d.]+k input tokens read from cache", screen_text(app))
        assert shown and float(shown.group(1)) > 0 and int(shown.group(2)) >= 80
        await send(pilot, "/context")
        assert isinstance(app.screen, TextViewer)
        app.screen.query_one("#viewer-body").scroll_end(animate=False)
        await pilot.pause()
        text = screen_text(app)
        assert re.search(r"Session usage · 7 model requests · cost \$0\.\d{4} \(litellm's prices\)", text), text
        assert re.search(r"read from cache [\d.]+k \(\d+%\)", text)
    assert fake_anthropic.rejections == []


async def test_a_model_without_caching_gets_no_note_and_an_unknown_cost(make_app, scripted_server):
    answer_summaries(scripted_server)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert not any("Prompt caching" in text for text in notes(app))
        await chat(pilot, 6)
        await send(pilot, "/compress")
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert "cost unknown · 0% of" in screen_text(app)


async def test_switching_to_claude_says_caching_is_on(make_app, scripted_server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # /model checks the key at once
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/model anthropic/claude-sonnet-4-5")
        assert notes(app)[-1] == (
            "Prompt caching: on (Claude via anthropic; system prompt + last 3 messages marked, 5m TTL)"
        )
        assert scripted_server.requests == []
