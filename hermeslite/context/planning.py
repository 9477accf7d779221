"""Planning a compression pass: what it would prune, summarize and keep.

A plan is pure: no model call and no change to the compressor's state, so the
preview the user asks for is the very plan `/compress` then carries out
(`ContextCompressor.execute`). The compressor hands its settings, sizes and
iterative state in as a `PlanSetup`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from .anchors import Anchors, extract_anchors, render_anchors, with_missing_anchors
from .assemble import previous_junction, unwrap_handoffs, unwrapped_positions
from .boundaries import find_boundaries, latest_user_index
from .handoff import find_previous, has_handoff
from .messages import ARCHIVE_KEY, Message
from .pass_sizes import PassSizes
from .plan import CompressionPlan, TurnCut
from .prune import PruneResult, prune
from .ranking import fit_anchors
from .settings import CompressionConfig
from .summarizing import COOLING_DOWN, NO_SUMMARIZER, fallback, small_window
from .tokens import estimate_tokens, message_tokens
from .tool_roles import ToolRoles
from .turn import fit_turn, turn_start, user_turns

FOCUS_CHARS = 200


@dataclass(frozen=True)
class PlanSetup:
    """What a plan reads from its compressor, taken when the pass starts."""

    config: CompressionConfig
    sizes: PassSizes
    roles: ToolRoles
    anchors: Anchors  # the compressor's recorded facts, for a checkpoint in the transcript that carries none
    has_summarizer: bool
    # Asked only when a model call is in question: it reads the guard's clock.
    cooling_down: Callable[[], bool]


def plan_pass(
    messages: list[Message],
    focus_topic: str | None,
    setup: PlanSetup,
    *,
    force: bool,
    handoff: bool,
    sent: int | None,
    upto: int | None = None,
) -> CompressionPlan:
    """What a pass over `messages` would do (see `ContextCompressor.plan`)."""
    original = list(messages)
    tokens = [message_tokens(m) for m in original]
    focus = " ".join((focus_topic or "").split())[:FOCUS_CHARS] or None
    cfg, sizes = setup.config, setup.sizes
    pruned = prune(
        original,
        protect_tokens=sizes.estimate_units(cfg.protect_tokens_for(sizes.context_length)),
        minimum_tokens=sizes.estimate_units(cfg.minimum_prune_for(sizes.context_length)),
        never_prune=frozenset(cfg.never_prune_tools),
        tokens=tokens,
        force=force,
        roles=setup.roles,
    )
    # Per-message counts are reused from here on: prune keeps every message it did not change.
    counts = [
        t if new is old else message_tokens(new) for new, old, t in zip(pruned.messages, original, tokens, strict=False)
    ]
    plan = CompressionPlan(
        messages=original, tokens=tokens, focus=focus, force=force, pruned=pruned, sizes=counts, upto=upto
    )
    if pruned.archived and not force and sizes.request_tokens(sum(counts)) <= sizes.target_tokens:
        plan.pruned_only = True
        return plan
    if upto is None:
        _fit_current_turn(plan, setup)
        if plan.turn.shortened and not force and sizes.request_tokens(sum(plan.sizes)) <= sizes.target_tokens:
            plan.pruned_only = True
            return plan
    plan.handoffs = [m for m in plan.pruned.messages if has_handoff(m)]
    plan.previous = find_previous(plan.handoffs)
    _plan_middle(plan, setup, handoff, sent)
    return plan


def _fit_current_turn(plan: CompressionPlan, setup: PlanSetup) -> None:
    """Shorten the largest results of the turn in progress when it alone is more than a compacted
    request has room for (see turn.py); the cuts join the prune's, originals archived the same way.

    The room is what the budgets leave the kept tail when a checkpoint will stand before the turn
    (anything precedes its user message), else all that the target leaves after what cannot shrink.
    """
    messages = plan.pruned.messages
    start = turn_start(messages)
    if start is None or start == len(messages) - 1:
        return
    system = messages[:1] if messages[0].get("role") == "system" else []
    fixed = [*system, *unwrap_handoffs([messages[start]])]  # the user's own words, not a merged checkpoint
    budgets = setup.sizes.budgets(fixed, [message_tokens(m) for m in fixed], setup.config.target_ratio)
    history = start > len(system) or has_handoff(messages[start])
    room = budgets.tail_cap if history else max(0, budgets.target_estimate - budgets.fixed.total)
    fit = fit_turn(messages, plan.sizes, start, room)
    plan.turn = TurnCut(shortened=fit.shortened, saved=fit.saved, short_of_room=fit.turn_tokens > room)
    if fit.changed:
        pruned = plan.pruned
        plan.pruned = PruneResult(
            messages=fit.messages,
            archived={**pruned.archived, **fit.archived},
            saved_tokens=pruned.saved_tokens + fit.saved,
            pruned=pruned.pruned,
        )
        plan.sizes = fit.tokens


def _plan_middle(plan: CompressionPlan, setup: PlanSetup, handoff: bool, sent: int | None) -> None:
    """Boundaries, budgets and recorded facts for the part a checkpoint will stand in for."""
    pruned = plan.pruned.messages
    if plan.handoffs:
        plan.working, plan.positions = unwrap_handoffs(pruned), unwrapped_positions(pruned)
        known = {id(m): t for m, t in zip(pruned, plan.sizes, strict=False)}
        plan.working_tokens = [known[id(m)] if id(m) in known else message_tokens(m) for m in plan.working]
    else:
        plan.working, plan.positions, plan.working_tokens = pruned, list(range(len(pruned))), plan.sizes
    working, tokens, config = plan.working, plan.working_tokens, setup.config
    plan.budgets = budgets = setup.sizes.budgets(working, tokens, config.target_ratio)
    floor = previous_junction(pruned) if plan.handoffs else 0
    user = latest_user_index(working)
    if handoff and user is not None:
        floor = max(floor, user)
    plan.bounds = bounds = find_boundaries(
        working,
        tokens,
        protect_first_n=0 if plan.previous or handoff else config.protect_first_n,
        tail_budget=budgets.tail,
        protect_last_n=config.protect_last_n,
        force=plan.force,
        tail_floor=floor,
        head_cap=budgets.head,
        tail_cap=budgets.tail_cap,
        unsent=None if sent is None else bisect_left(plan.positions, sent),
        upto=None if plan.upto is None else _upto_cut(working, plan.upto),
    )
    if bounds.empty:
        return
    previous_body = plan.previous[0] if plan.previous else ""
    plan.replaced = sum(tokens[bounds.head_end : bounds.tail_start]) + estimate_tokens(previous_body)
    archived = plan.pruned.archived
    plan.originals = [archived.get(m[ARCHIVE_KEY], m) if ARCHIVE_KEY in m else m for m in plan.middle]
    plan.anchors = fit_anchors(
        extract_anchors(plan.originals, setup.roles).merged_with(_older_anchors(plan, setup.anchors)),
        budgets.anchors,
    )
    floor = config.min_summary_tokens
    if budgets.provider_tokens(budgets.summary) < floor:
        plan.small_window = True
        plan.no_call = small_window(budgets.provider_tokens(budgets.summary), floor)
    elif not setup.has_summarizer:
        plan.no_call = NO_SUMMARIZER
    elif not plan.force and setup.cooling_down():
        plan.no_call = COOLING_DOWN


def _upto_cut(working: list[Message], upto: int) -> int:
    """Where user turn `upto` + 1 begins in `working`: the first message `/compress --upto` keeps.
    The latest user turn is kept whatever `upto` says (the caller has checked it, see `upto_problem`)."""
    turns = user_turns(working)
    if len(turns) < 2:
        return turns[0] if turns else 0
    return turns[max(1, min(upto, len(turns) - 1))]


def _older_anchors(plan: CompressionPlan, current: Anchors) -> Anchors:
    """The recorded facts of the checkpoint already in the transcript (see `ContextCompressor._rehydrate_from`)."""
    if plan.previous is None:
        return Anchors()
    return Anchors.from_dict(plan.previous[1]) if plan.previous[1] else current


def checkpoint_estimate(plan: CompressionPlan) -> int:
    """The size of the checkpoint a summarizing `plan` would make, for the preview.

    Exact for a checkpoint built by code; when a model would write it, a fifth
    of what it replaces (at most the length it is asked for), plus every
    recorded fact in case it leaves them all out.
    """
    if plan.no_call:
        return estimate_tokens(with_missing_anchors(fallback(plan, plan.no_call).text or "", plan.anchors))
    assert plan.budgets is not None
    aim = min(plan.budgets.summary_target(plan.replaced), plan.replaced // 5)
    return aim + estimate_tokens(render_anchors(plan.anchors))
