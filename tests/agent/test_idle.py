"""When an idle session compacts before its next request (agent/idle.py): the decision alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hermeslite.agent.idle import IdleState, compaction_pays, idle_compaction_due, idle_notice
from hermeslite.agent.saving import SessionSaver
from hermeslite.agent.usage import UsageMeter
from hermeslite.llm.caching import CachePlan
from hermeslite.llm.types import Usage
from hermeslite.store.sessions import SessionStore

MARKED_5M = CachePlan("breakpoints", "5m", "Claude via anthropic")
MARKED_1H = CachePlan("breakpoints", "1h", "Claude via anthropic")
STATE = IdleState("auto", MARKED_5M, idle_seconds=301.0, tokens=8_000, threshold=10_000, share=0.7)


def test_idle_past_the_ttl_and_over_the_share_compacts() -> None:
    assert idle_compaction_due(STATE)


def test_a_session_back_within_the_ttl_does_not_compact() -> None:
    assert not idle_compaction_due(replace(STATE, idle_seconds=299.0))
    assert idle_compaction_due(replace(STATE, idle_seconds=300.0))  # the entry has expired at its TTL


def test_the_share_of_the_threshold_decides_how_full_is_full_enough() -> None:
    assert not idle_compaction_due(replace(STATE, tokens=6_999))
    assert idle_compaction_due(replace(STATE, tokens=7_000))
    assert not idle_compaction_due(replace(STATE, share=0.9))
    assert idle_compaction_due(replace(STATE, tokens=5_000, share=0.5))


def test_at_the_threshold_preflight_compacts_not_this_rule() -> None:
    assert not idle_compaction_due(replace(STATE, tokens=10_000))


@pytest.mark.parametrize(("idle", "due"), [(301.0, False), (3_599.0, False), (3_600.0, True), (86_400.0, True)])
def test_the_hour_ttl_waits_an_hour(idle: float, due: bool) -> None:
    assert idle_compaction_due(replace(STATE, plan=MARKED_1H, idle_seconds=idle)) is due


@pytest.mark.parametrize(
    "plan",
    [
        CachePlan("off", "5m"),  # model.prompt_caching: off
        CachePlan("none", "5m", "a model with no prompt caching"),
        # OpenAI, DeepSeek, Gemini: their cache lives as long as they choose and say nothing of it.
        CachePlan("automatic", "5m", "openai"),
    ],
)
def test_no_cache_of_ours_to_go_cold_no_idle_compaction(plan: CachePlan) -> None:
    assert not idle_compaction_due(replace(STATE, plan=plan, idle_seconds=86_400.0))


def test_idle_compact_off_never_compacts() -> None:
    assert not idle_compaction_due(replace(STATE, setting="off", idle_seconds=86_400.0))


def test_before_any_request_there_is_no_idle_gap() -> None:
    assert not idle_compaction_due(replace(STATE, idle_seconds=None))


def test_at_5m_a_summary_pays_only_when_the_compacted_request_is_under_a_fifth() -> None:
    """Cold write of the prefix: 1.25 x 10,000. Compacting: the summary reads 10,000 once (1x), then
    the compacted request is written (1.25x): under 2,000 tokens or it costs more."""
    state = replace(STATE, tokens=10_000, threshold=12_000)
    assert compaction_pays(state, 1_999, summary_call=True)
    assert not compaction_pays(state, 2_000, summary_call=True)


def test_at_1h_a_summary_pays_when_the_compacted_request_is_under_half() -> None:
    state = replace(STATE, plan=MARKED_1H, tokens=10_000, threshold=12_000)
    assert compaction_pays(state, 4_999, summary_call=True)
    assert not compaction_pays(state, 5_000, summary_call=True)


def test_a_checkpoint_built_by_code_pays_whenever_it_shrinks_the_request() -> None:
    state = replace(STATE, tokens=10_000, threshold=12_000)
    assert compaction_pays(state, 9_999, summary_call=False)
    assert not compaction_pays(state, 10_000, summary_call=False)


def test_the_notice_says_why_in_one_line() -> None:
    line = idle_notice(replace(STATE, idle_seconds=8 * 3_600 + 120.0))
    assert "\n" not in line
    assert "Idle for 8 h 2 min" in line and "5m lifetime" in line and "cache is cold" in line
    assert "8,000 tokens, 80% of the threshold" in line and "idle_compact: off" in line
    assert "Idle for 6 min" in idle_notice(replace(STATE, idle_seconds=360.0))


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_idle_gap_runs_from_the_last_request_and_survives_a_restart(tmp_path: Path) -> None:
    clock = Clock(1_000.0)
    with SessionStore(tmp_path / "sessions.db") as store:
        sid = store.create_session(model="anthropic/claude-sonnet-4-5", cwd=str(tmp_path))
        meter = UsageMeter(store, sid, SessionSaver(store, sid, lambda event: None), clock)
        assert meter.idle_seconds() is None
        meter.record("turn", "anthropic/claude-sonnet-4-5", Usage(prompt_tokens=900, completion_tokens=40))
        clock.now += 250.0
        assert meter.idle_seconds() == 250.0
        meter.record("summary", "anthropic/claude-sonnet-4-5", Usage(prompt_tokens=950, completion_tokens=300))
        assert meter.idle_seconds() == 0.0  # a summary request touches the cache too
        assert [r.at for r in store.usage(sid)] == [1_000.0, 1_250.0]

        clock.now += 9 * 3_600.0  # the next morning, in a new process
        resumed = UsageMeter(store, sid, SessionSaver(store, sid, lambda event: None), clock)
        assert resumed.idle_seconds() == 9 * 3_600.0
