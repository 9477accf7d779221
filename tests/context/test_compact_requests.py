"""The guard on compactions the model asks for: waste and loops are refused, ordinary breaks are not."""

from __future__ import annotations

from hermeslite.context.compact_requests import AGENT_TRIGGER, LOOP_LIMIT, LOOP_TURNS, MIN_SHARE, CompactRequests

THRESHOLD = 10_000
FULL = 6_000  # well over MIN_SHARE of the threshold


def turns(n: int, state: CompactRequests | None = None) -> CompactRequests:
    state = state or CompactRequests()
    for _ in range(n):
        state = state.turn_begun()
    return state


def test_a_request_at_a_natural_break_is_accepted_and_pending_with_its_focus():
    state = turns(1)
    assert state.refusal(FULL, THRESHOLD) is None
    state = state.requested("the parser bug")
    assert state.pending and state.focus == "the parser bug"
    assert state.requested("").focus is None  # an empty focus is no focus


def test_a_second_request_while_one_is_pending_is_refused():
    state = turns(1).requested("a")
    assert "already requested" in state.refusal(FULL, THRESHOLD)
    assert state.taken().refusal(FULL, THRESHOLD) is None  # once it ran (or was dropped), the pending rule is gone


def test_a_request_after_a_compaction_in_the_same_user_turn_is_refused_until_the_next_turn():
    for trigger in ("preflight", "reactive", "manual", AGENT_TRIGGER):
        state = turns(2).compacted(trigger)
        assert "already compacted during this user turn" in state.refusal(FULL, THRESHOLD)
        assert state.turn_begun().refusal(FULL, THRESHOLD) is None


def test_a_small_conversation_before_this_turn_is_not_worth_a_compaction():
    floor = int(THRESHOLD * MIN_SHARE)
    state = turns(1)
    refusal = state.refusal(floor - 1, THRESHOLD)
    assert refusal is not None and f"before this turn holds {floor - 1:,} tokens" in refusal and "25%" in refusal
    assert state.refusal(floor, THRESHOLD) is None


def test_more_than_the_loop_limit_within_the_window_is_refused_and_allowed_again_once_they_age_out():
    state = turns(1)
    for _ in range(LOOP_LIMIT):
        assert state.refusal(FULL, THRESHOLD) is None
        state = state.requested(None).taken().compacted(AGENT_TRIGGER).turn_begun()
    refusal = state.refusal(FULL, THRESHOLD)
    assert refusal is not None and f"last {LOOP_TURNS} user turns" in refusal
    # the first of them leaves the window LOOP_TURNS turns after it ran
    first = 1
    while state.turns < first + LOOP_TURNS - 1:
        state = state.turn_begun()
        assert state.refusal(FULL, THRESHOLD) is not None
    assert state.turn_begun().refusal(FULL, THRESHOLD) is None


def test_automatic_compactions_do_not_count_toward_the_loop_limit():
    state = turns(1)
    for _ in range(LOOP_LIMIT * 3):
        state = state.compacted("preflight").turn_begun()
    assert state.recent_agent_compactions() == 0 and state.refusal(FULL, THRESHOLD) is None


def test_a_new_turn_drops_a_request_its_unfinished_turn_left():
    state = turns(1).requested("x").turn_begun()
    assert not state.pending and state.focus is None
