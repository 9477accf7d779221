"""How much of the window each part of a compacted transcript may take.

A compaction that leaves the request at 90% of the threshold buys one turn:
the next reply crosses the line again and the user pays for another summary.
So every budget here is a share of the threshold, never a fixed count, and
together they leave the request after a compaction at no more than 60% of
the threshold, whatever the window: what cannot shrink (tool schemas, system
prompt, the user's latest message) comes off the top, and the rest is shared
between the checkpoint, the recorded facts, the opening exchange and the
recent tail.

The threshold is in the provider's tokens, the engine's counts are rough
estimates (tokens.py), and the two differ by the calibration factor (`scale`,
provider tokens per estimated token: 2 or more for CJK text or a tokenizer
that counts more than ours). Every budget is therefore worked out in
estimate units from the threshold divided by that factor, so a compaction
the engine thinks is enough is enough by the meter's count too; what the
user reads (the target, an overflow message) is in the provider's tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from .handoff import END, MERGE_GAP, OPEN, PREAMBLE, RECOVERY_NOTE, SYSTEM_NOTE
from .tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens

AFTER_COMPACTION = 0.60  # the request right after a compaction, as a share of the threshold
SUMMARY_SHARE = 0.10  # the longest model-written checkpoint accepted
SUMMARY_MIN, SUMMARY_MAX = 160, 12_000
ANCHOR_SHARE = 0.15  # the recorded facts appended to the checkpoint
ANCHOR_MIN, ANCHOR_MAX = 100, 8_000
HEAD_SHARE = 0.10  # the opening exchange kept until the first compaction
SUMMARY_FLOOR_MAX = 2_000  # the length asked for never has to be more than this
# The frame around a checkpoint (its recovery note included) and the note added to the system prompt.
FRAME_TOKENS = (
    estimate_tokens(f"{OPEN} {PREAMBLE}\n\n\n\n{RECOVERY_NOTE}\n\n{END}{MERGE_GAP}\n\n{SYSTEM_NOTE}")
    + MESSAGE_OVERHEAD_TOKENS
)


@dataclass(frozen=True)
class Fixed:
    """What no compaction can shrink, in estimate units."""

    overhead: int  # tool schemas, sent with every request
    system: int  # the system prompt
    user: int  # the latest user message, kept verbatim

    @property
    def total(self) -> int:
        return self.overhead + self.system + self.user


@dataclass(frozen=True)
class Budgets:
    """Token budgets for one compaction, after what cannot shrink: `threshold` and `target` in the
    provider's tokens, everything else in estimate units."""

    threshold: int
    target: int  # the whole request after the compaction, at most
    scale: float  # provider tokens per estimated token
    fixed: Fixed
    summary: int  # the longest model-written checkpoint accepted
    anchors: int  # the recorded facts
    head: int  # the opening exchange (first compaction only)
    tail: int  # the recent tail, soft
    tail_cap: int  # head + tail together, hard

    def summary_target(self, replaced_tokens: int) -> int:
        """The length to ask the summarizer for: a fifth of what it replaces, leaving it
        a third of its slot to overshoot."""
        aim = max(1, self.summary * 2 // 3)
        floor = min(SUMMARY_FLOOR_MAX, aim // 2)
        return max(floor, min(aim, replaced_tokens // 5))

    @property
    def target_estimate(self) -> int:
        """`target` in estimate units, rounded down so that an estimate within it is within `target`."""
        return int(self.target / self.scale)

    def provider_tokens(self, estimate: int) -> int:
        """An estimate in the provider's tokens, as the meter counts it."""
        return round(estimate * self.scale)


def _share(threshold: int, share: float, lo: int, hi: int) -> int:
    return max(lo, min(hi, int(threshold * share)))


def plan_budgets(threshold: int, target_ratio: float, fixed: Fixed, scale: float = 1.0) -> Budgets:
    """Budgets for a compaction under `threshold` (provider tokens) when `fixed` cannot shrink.

    When little room is left, the checkpoint and the facts together take at
    most half of it (never less than their minimums), and the tail gets the rest.
    """
    target = int(threshold * AFTER_COMPACTION)
    estimated = int(threshold / scale)  # the threshold in the units the engine counts in
    room = max(0, int(target / scale) - fixed.total - FRAME_TOKENS)
    summary = _share(estimated, SUMMARY_SHARE, SUMMARY_MIN, SUMMARY_MAX)
    anchors = _share(estimated, ANCHOR_SHARE, ANCHOR_MIN, ANCHOR_MAX)
    if summary + anchors > room // 2:
        shrink = (room // 2) / (summary + anchors)
        summary = max(SUMMARY_MIN, int(summary * shrink))
        anchors = max(ANCHOR_MIN, int(anchors * shrink))
    tail_cap = max(0, room - summary - anchors)
    return Budgets(
        threshold=threshold,
        target=target,
        scale=scale,
        fixed=fixed,
        summary=summary,
        anchors=anchors,
        head=min(int(estimated * HEAD_SHARE), tail_cap // 2),
        tail=min(int(estimated * target_ratio), tail_cap),
        tail_cap=tail_cap,
    )


def overflow_reason(budgets: Budgets, after: int) -> str | None:
    """Why a request of `after` estimated tokens (everything counted) is still over the target, or None.

    Names the part that cannot shrink when there is one, with what the user can do about it, in
    the provider's tokens.
    """
    tokens = budgets.provider_tokens
    if tokens(after) <= budgets.target:
        return None
    limit = (
        f"right after a compaction a request may carry ~{budgets.target:,} tokens "
        f"({AFTER_COMPACTION:.0%} of the {budgets.threshold:,}-token threshold)"
    )
    fixed, target = budgets.fixed, budgets.target_estimate
    setup = fixed.system + fixed.overhead
    if fixed.user > max(0, target - setup) and fixed.user >= setup:
        return (
            f"the latest user message alone is ~{tokens(fixed.user):,} tokens and {limit}: shorten or split "
            "it, start a new session, or set model.context_window if the model's window is bigger"
        )
    if fixed.total > target:
        return (
            f"the system prompt and tool schemas alone are ~{tokens(setup):,} tokens and {limit}: "
            "set model.context_window if the model's window is bigger, or use a model with a larger one"
        )
    return f"the request is still ~{tokens(after):,} tokens and {limit}"


def turn_overflow(request: int, threshold: int) -> str:
    """Why the turn in progress cannot go on: even with its largest results cut as far as they go,
    the request it makes (`request` provider tokens) is at or over the `threshold`."""
    return (
        f"the tool calls and results of this turn do not fit the context window even with their largest "
        f"outputs cut to head and tail: the next request would be ~{request:,} tokens, and compaction starts at "
        f"{threshold:,}"
    )
