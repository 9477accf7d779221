"""What a compression pass will do, decided before it does anything.

`ContextCompressor.plan` works out the prune, the boundaries, the budgets and
the recorded facts without calling a model or changing any state;
`ContextCompressor.execute` then carries a plan out. `compress` is exactly
plan + execute, so `/compress --preview` (which only plans) cannot drift
from what `/compress` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .anchors import Anchors
from .boundaries import Boundaries
from .budgets import FRAME_TOKENS, Budgets
from .messages import Message
from .prune import PruneResult
from .result import format_tokens


@dataclass(frozen=True)
class TurnCut:
    """What a pass does to the turn in progress (see turn.py): it is kept, its largest results may be cut."""

    shortened: int = 0  # tool results cut to their head and tail
    saved: int = 0  # estimated tokens that saves
    short_of_room: bool = False  # even cut as far as they go, the turn takes more than the room it has


@dataclass
class CompressionPlan:
    """Everything `execute` needs; `messages` is the transcript planned for, never modified."""

    messages: list[Message]
    tokens: list[int]  # per message of `messages`
    focus: str | None
    force: bool
    pruned: PruneResult
    sizes: list[int]  # per message of `pruned.messages`
    pruned_only: bool = False  # the prune alone brings the request under target
    previous: tuple[str, dict[str, Any]] | None = None  # the checkpoint already in the transcript
    working: list[Message] = field(default_factory=list)  # pruned, earlier checkpoints unwrapped
    positions: list[int] = field(default_factory=list)  # index in `messages` of each working message
    working_tokens: list[int] = field(default_factory=list)
    handoffs: list[Message] = field(default_factory=list)
    budgets: Budgets | None = None
    bounds: Boundaries | None = None
    anchors: Anchors = field(default_factory=Anchors)
    originals: list[Message] = field(default_factory=list)  # the middle as it was before the prune
    replaced: int = 0  # tokens the checkpoint stands in for
    no_call: str | None = None  # why no model would be asked (the checkpoint is built by code)
    small_window: bool = False  # the window leaves the checkpoint too little for a model call to be worth it
    upto: int | None = None  # /compress --upto N: user turns 1..N are summarized, the rest kept
    refills: int = 0  # recorded on the checkpoint: compactions in a row refilled within a turn (refill.py)
    turn: TurnCut = TurnCut()
    redacted: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # the pass's redaction memo

    @property
    def tokens_before(self) -> int:
        return sum(self.tokens)

    @property
    def summarizes(self) -> bool:
        return self.bounds is not None and not self.bounds.empty

    @property
    def middle(self) -> list[Message]:
        return self.bounds.middle(self.working) if self.bounds is not None else []


@dataclass(frozen=True)
class Span:
    """A run of transcript messages: how many, their tokens, and where (1-based, inclusive)."""

    count: int = 0
    tokens: int = 0
    first: int = 0
    last: int = 0

    def describe(self) -> str:
        """The span for the user; `tokens` are the provider's (calibrated), like every figure shown."""
        if not self.count:
            return "none"
        where = f"#{self.first}" if self.first == self.last else f"#{self.first}-#{self.last}"
        return f"{_count(self.count, 'message')} ({where}), ~{format_tokens(self.tokens)} tokens"


@dataclass(frozen=True)
class Preview:
    """A dry run of one pass, for the user: nothing was called and nothing changed."""

    messages: int
    tokens_before: int
    target_tokens: int
    pruned: int = 0  # tool outputs and arguments replaced by a one-line placeholder
    pruned_tokens: int = 0  # what that saves
    head: Span = Span()
    summarized: Span = Span()
    tail: Span = Span()
    updates_checkpoint: bool = False  # an earlier checkpoint is folded into the new one
    estimated_after: int = 0
    summary_call: bool = False
    no_call: str | None = None  # why no summary call would be made
    focus: str | None = None
    upto: int | None = None  # --upto N: user turns 1..N summarized, the rest kept
    shortened: int = 0  # tool results of the turn in progress cut to head and tail
    shortened_tokens: int = 0  # what that saves

    @property
    def changes(self) -> bool:
        return self.estimated_after < self.tokens_before

    def lines(self) -> list[str]:
        """The preview as lines of text, the same in every front end."""
        before = f"{_count(self.messages, 'message')}, ~{format_tokens(self.tokens_before)} tokens"
        upto = f" --upto {self.upto}" if self.upto is not None else ""
        lines = [
            f"Preview of /compress{upto}{f' {self.focus}' if self.focus else ''} (nothing was sent or changed)",
            f"Now: {before}",
        ]
        if self.pruned:
            lines.append(
                f"Prune: {_count(self.pruned, 'old tool message')} to one-line placeholders, "
                f"saving ~{format_tokens(self.pruned_tokens)} tokens (originals stay in the archive)"
            )
        else:
            lines.append("Prune: nothing worth pruning")
        if self.shortened:
            lines.append(
                f"Shorten: {_count(self.shortened, 'tool result')} of the latest turn to head and tail, "
                f"saving ~{format_tokens(self.shortened_tokens)} tokens (the whole stays in the archive)"
            )
        if self.summarized.count:
            folded = ", folding in the earlier checkpoint" if self.updates_checkpoint else ""
            turns = f"user turns 1-{self.upto}: " if self.upto is not None else ""
            lines += [
                f"Summarize: {turns}{self.summarized.describe()}{folded}",
                f"Keep verbatim: head {self.head.describe()}; tail {self.tail.describe()}",
            ]
        elif (self.pruned or self.shortened) and self.changes:
            lines.append("Summarize: nothing, the prune is enough")
        else:
            lines.append("Summarize: nothing (every message is in the kept head or tail)")
        if self.changes:
            estimate = "estimate, the summary's length is up to the model; " if self.summary_call else ""
            lines.append(
                f"After: ~{format_tokens(self.estimated_after)} tokens ({estimate}"
                f"target ~{format_tokens(self.target_tokens)})"
            )
        else:
            lines.append("After: no change, nothing would be removed")
        if self.summary_call:
            lines.append("Model call: yes, a summary request")
        else:
            lines.append(f"Model call: no{f' ({self.no_call})' if self.no_call else ''}")
        return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n:,} {noun}s"


def describe_plan(
    plan: CompressionPlan,
    target_tokens: int,
    *,
    checkpoint_tokens: int,
    request_tokens: Callable[[int], int],
    scale: float,
) -> Preview:
    """The user's view of `plan`; `checkpoint_tokens` is the expected size of the checkpoint text.

    The plan counts in estimate units; the preview shows what the meter would:
    `request_tokens` turns the messages' estimate into the whole request in
    the provider's tokens, and `scale` turns a part of it into the provider's.
    """
    before = plan.tokens_before
    shortened = round(plan.turn.saved * scale)
    pruned_tokens = round((before - sum(plan.sizes)) * scale) - shortened if plan.pruned.pruned else 0
    common: dict[str, Any] = dict(
        messages=len(plan.messages),
        tokens_before=request_tokens(before),
        target_tokens=target_tokens,
        pruned=plan.pruned.pruned,
        pruned_tokens=pruned_tokens,
        focus=plan.focus,
        upto=plan.upto,
        shortened=plan.turn.shortened,
        shortened_tokens=shortened,
    )
    if not plan.summarizes:
        after = sum(plan.sizes) if plan.pruned.archived else before
        return Preview(
            **common,
            estimated_after=request_tokens(after),
            no_call="the prune is enough" if plan.pruned.archived else "nothing to summarize",
        )
    bounds, tokens = plan.bounds, plan.working_tokens
    assert bounds is not None
    kept = sum(tokens[: bounds.head_end]) + sum(tokens[bounds.tail_start :])
    middle = range(bounds.head_end, bounds.tail_start)
    after = kept + FRAME_TOKENS + checkpoint_tokens
    return Preview(
        **common,
        head=_span(plan, range(0, bounds.head_end), scale, skip_system=True),
        summarized=_span(plan, middle, scale),
        tail=_span(plan, range(bounds.tail_start, len(plan.working)), scale),
        updates_checkpoint=plan.previous is not None,
        estimated_after=request_tokens(min(after, before)),
        summary_call=plan.no_call is None,
        no_call=plan.no_call,
    )


def _span(plan: CompressionPlan, indices: Iterable[int], scale: float, *, skip_system: bool = False) -> Span:
    """The working messages at `indices` as positions in the transcript the user sees."""
    chosen = [i for i in indices if not (skip_system and plan.working[i].get("role") == "system")]
    if not chosen:
        return Span()
    places = [plan.positions[i] + 1 for i in chosen]
    return Span(
        count=len(chosen),
        tokens=round(sum(plan.working_tokens[i] for i in chosen) * scale),
        first=min(places),
        last=max(places),
    )
