"""The status bar's cost and cache-hit rate, drawn from what the provider reported.

Claude runs against the fake Anthropic server through litellm's real path, so
the cache reads on screen are the ones its prompt cache billed; the scripted
OpenAI-compatible server's model has no price and no cache, so the badge says
nothing rather than a made-up number.
"""

from __future__ import annotations

import re

from hermeslite.store.usage import UsageTotals
from hermeslite.tui.widgets.usage_badge import usage_text
from tests.fake_anthropic import FakeAnthropic
from tests.tui.pilot import SIZE, chat, ready, send, settle
from tests.tui.test_caching import claude

__all__ = ["claude"]


def status(app) -> str:
    return str(app.usage_badge.render()) if app.usage_badge.display else ""


async def test_cost_and_cache_hits_appear_after_a_cached_turn_and_fit_at_80_columns(
    make_app, claude, fake_anthropic: FakeAnthropic
):
    app = make_app(llm=claude)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert status(app) == ""  # nothing asked yet, nothing to show
        await chat(pilot, 3)
        narrow = status(app)
        shown = re.fullmatch(r"\$(\d+\.\d{4}) · (\d+)% cached", narrow)
        assert shown, narrow
        usage = app.host.agent.session_usage()
        assert float(shown.group(1)) == round(usage.cost, 4) > 0
        assert int(shown.group(2)) == round(100 * usage.cache_hit_rate) > 0
        assert app.usage_badge.region.right <= SIZE[0]  # on screen, beside the meter and the mode
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert re.fullmatch(r"cost \$\d+\.\d{4} · cache hit \d+%", status(app)), status(app)
        await send(pilot, "one more")
        assert app.host.agent.session_usage().requests == usage.requests + 1
        assert f"{round(100 * app.host.agent.session_usage().cache_hit_rate)}%" in status(app)
    assert fake_anthropic.rejections == []


async def test_a_model_with_no_price_and_no_cache_leaves_the_badge_empty(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await chat(pilot, 1)
        assert app.host.agent.session_usage().requests == 1
        assert status(app) == ""


def test_the_wording_for_local_partly_priced_and_tiny_costs():
    local = UsageTotals(requests=2, prompt_tokens=100, local=2)
    assert usage_text(local, wide=True) == "cost free"
    partly = UsageTotals(requests=3, prompt_tokens=1000, cache_read_tokens=500, cost=0.25, unpriced=1)
    assert usage_text(partly, wide=False) == "$0.2500+ · 50% cached"
    tiny = UsageTotals(requests=1, prompt_tokens=10, cost=0.00001)
    assert usage_text(tiny, wide=True) == "cost <$0.0001"
    assert usage_text(UsageTotals(), wide=True) == ""
