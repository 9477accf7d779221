"""How much of the window each part of a compacted transcript may take.

A compaction that leaves the request at 90% of the threshold buys one turn:
the next reply crosses the line again and the user pays for another summary.
So every budget here is a share of the threshold, never a fixed count, and
together they leave the request after a compaction at no more than 60% of
the threshold, whatever the window: what cannot shrink (tool schemas, system
prompt, the user's latest message) comes off the top, and the rest is shared
between the checkpoint, the recorded facts, the opening exchange and the
recent tail.
"""

from __future__ import annotations

from dataclasses import dataclass

from .handoff import END, MERGE_GAP, OPEN, PREAMBLE, RECOVERY_NOTE, SYSTEM_NOTE
from .tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens

AFTER_COMPACTION = 0.60      # the request right after a compaction, as a share of the threshold
SUMMARY_SHARE = 0.10         # the longest model-written checkpoint accepted
SUMMARY_MIN, SUMMARY_MAX = 160, 12_000
ANCHOR_SHARE = 0.15          # the recorded facts appended to the checkpoint
ANCHOR_MIN, ANCHOR_MAX = 100, 8_000
HEAD_SHARE = 0.10            # the opening exchange kept until the first compaction
SUMMARY_FLOOR_MAX = 2_000    # the length asked for never has to be more than this
# The frame around a checkpoint (its recovery note included) and the note added to the system prompt.
FRAME_TOKENS = estimate_tokens(
    f"{OPEN} {PREAMBLE}\n\n\n\n{RECOVERY_NOTE}\n\n{END}{MERGE_GAP}\n\n{SYSTEM_NOTE}") + MESSAGE_OVERHEAD_TOKENS


@dataclass(frozen=True)
class Fixed:
    """What no compaction can shrink, in tokens."""

    overhead: int     # tool schemas, sent with every request
    system: int       # the system prompt
    user: int         # the latest user message, kept verbatim

    @property
    def total(self) -> int:
        return self.overhead + self.system + self.user


@dataclass(frozen=True)
class Budgets:
    """Token budgets for one compaction, after what cannot shrink."""

    threshold: int
    target: int       # the whole request after the compaction, at most
    fixed: Fixed
    summary: int      # the longest model-written checkpoint accepted
    anchors: int      # the recorded facts
    head: int         # the opening exchange (first compaction only)
    tail: int         # the recent tail, soft
    tail_cap: int     # head + tail together, hard

    def summary_target(self, replaced_tokens: int) -> int:
        """The length to ask the summarizer for: a fifth of what it replaces, leaving it
        a third of its slot to overshoot."""
        aim = max(1, self.summary * 2 // 3)
        floor = min(SUMMARY_FLOOR_MAX, aim // 2)
        return max(floor, min(aim, replaced_tokens // 5))


def _share(threshold: int, share: float, lo: int, hi: int) -> int:
    return max(lo, min(hi, int(threshold * share)))


def plan_budgets(threshold: int, target_ratio: float, fixed: Fixed) -> Budgets:
    """Budgets for a compaction under `threshold` when `fixed` cannot shrink.

    When little room is left, the checkpoint and the facts together take at
    most half of it (never less than their minimums), and the tail gets the rest.
    """
    target = int(threshold * AFTER_COMPACTION)
    room = max(0, target - fixed.total - FRAME_TOKENS)
    summary = _share(threshold, SUMMARY_SHARE, SUMMARY_MIN, SUMMARY_MAX)
    anchors = _share(threshold, ANCHOR_SHARE, ANCHOR_MIN, ANCHOR_MAX)
    if summary + anchors > room // 2:
        scale = (room // 2) / (summary + anchors)
        summary = max(SUMMARY_MIN, int(summary * scale))
        anchors = max(ANCHOR_MIN, int(anchors * scale))
    tail_cap = max(0, room - summary - anchors)
    return Budgets(
        threshold=threshold, target=target, fixed=fixed, summary=summary, anchors=anchors,
        head=min(int(threshold * HEAD_SHARE), tail_cap // 2),
        tail=min(int(threshold * target_ratio), tail_cap), tail_cap=tail_cap,
    )


def overflow_reason(budgets: Budgets, after: int) -> str | None:
    """Why a request of `after` tokens (everything counted) is still over the target, or None.

    Names the part that cannot shrink when there is one, with what the user can do about it.
    """
    if after <= budgets.target:
        return None
    limit = (f"right after a compaction a request may carry ~{budgets.target:,} tokens "
             f"({AFTER_COMPACTION:.0%} of the {budgets.threshold:,}-token threshold)")
    fixed = budgets.fixed
    setup = fixed.system + fixed.overhead
    if fixed.user > max(0, budgets.target - setup) and fixed.user >= setup:
        return (f"the latest user message alone is ~{fixed.user:,} tokens and {limit}: shorten or split it, "
                "start a /new session, or set model.context_window if the model's window is bigger")
    if fixed.total > budgets.target:
        return (f"the system prompt and tool schemas alone are ~{setup:,} tokens and {limit}: "
                "set model.context_window if the model's window is bigger, or use a model with a larger one")
    return f"the request is still ~{after:,} tokens and {limit}"
