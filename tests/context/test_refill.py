"""The refill guard's count, kept on the checkpoint: compactions refilled within one turn, in a row."""

from __future__ import annotations

import asyncio

from hermeslite.context import CompressionConfig, ContextCompressor
from hermeslite.context.handoff import has_handoff
from hermeslite.context.messages import REFILL_KEY, strip_private
from hermeslite.context.refill import REFILL_LIMIT, is_paused, refill_strikes, stamped_checkpoint, with_refill_record

from ..builders import FILLER, Transcript
from ..summary_requests import checkpoint


def _compacted(strikes: int) -> list[dict]:
    """A transcript right after a compaction at the start of a turn: the checkpoint, then the ask."""
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "assistant", "content": "[HANDOFF SUMMARY: REFERENCE ONLY] ...", "_hl_summary": True},
        {"role": "user", "content": "the ask"},
    ]
    return with_refill_record(messages, strikes)


def _turn(messages: list[dict], text: str = "next") -> list[dict]:
    return [*messages, {"role": "assistant", "content": "done"}, {"role": "user", "content": text}]


def test_no_checkpoint_or_no_record_counts_nothing():
    assert refill_strikes(Transcript().user("a").build()) == 0
    bare = _compacted(0)
    del bare[1][REFILL_KEY]
    assert refill_strikes(bare) == 0


def test_the_record_holds_the_strikes_and_the_user_turns_after_the_checkpoint():
    messages = _compacted(1)
    assert messages[1][REFILL_KEY] == {"strikes": 1, "turns": 1}
    assert REFILL_KEY not in strip_private(messages)[1]  # never sent


def test_reaching_the_threshold_within_one_turn_of_a_compaction_is_a_strike():
    messages = _compacted(0)
    assert refill_strikes(messages) == 1  # in the same turn
    assert refill_strikes(_turn(messages)) == 1  # at the next turn's start: that one turn refilled it
    assert refill_strikes(_turn(_turn(messages))) == 0  # two turns: compaction bought something
    assert refill_strikes(_turn(_compacted(2))) == REFILL_LIMIT


def test_a_pause_holds_however_many_turns_pass_until_a_new_checkpoint_says_otherwise():
    at, paused = stamped_checkpoint(_compacted(2), REFILL_LIMIT)
    messages = _compacted(2)
    messages[at] = paused
    assert is_paused(messages) and not is_paused(_compacted(2))
    for _ in range(5):
        messages = _turn(messages)
    assert refill_strikes(messages) == REFILL_LIMIT
    assert refill_strikes(_compacted(0)) == 1  # a manual compaction's checkpoint starts again


def test_three_compactions_each_refilled_within_a_turn_reach_the_limit_through_the_engine():
    async def summarize(prompt: str, model: str | None) -> str:
        return checkpoint()

    c = ContextCompressor(CompressionConfig(), context_length=200_000, summarize=summarize)
    t = Transcript("sys")
    for n in range(6):
        t.user(f"{n} " + FILLER).assistant(FILLER)
    messages = t.user("the ask").build()
    strikes = []
    for _ in range(REFILL_LIMIT):
        counted = refill_strikes(messages)  # what the agent reads when the threshold is reached
        strikes.append(counted)
        result = asyncio.run(c.compress(messages, force=True, refills=counted))
        [stamped] = [m for m in result.messages if has_handoff(m)]
        assert stamped[REFILL_KEY]["strikes"] == counted
        messages = _turn(result.messages, "more " + FILLER)  # one turn later, full again
    assert strikes == [0, 1, 2] and refill_strikes(messages) == REFILL_LIMIT
