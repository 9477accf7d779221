"""The compression engine: prune, then summarize the middle, then reassemble.

`ContextCompressor` owns the state that must outlive a single pass (the
previous summary and anchors for iterative updates, the cooldown and the
anti-thrash counters) and nothing else: the LLM arrives as an injected async
callable and the transcript is passed in and handed back, never stored.

A pass is a `plan` (pure: what would be pruned, summarized and kept, with no
model call) carried out by `execute`; the preview the user asks for is the
same plan, so it shows what the pass will really do.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from typing import Any

from .anchors import Anchors, with_missing_anchors
from .assemble import assemble
from .budgets import Budgets, overflow_reason, turn_overflow
from .checkpoint import CheckpointEdit, replace_checkpoint
from .guard import Guard
from .handoff import find_previous, has_handoff
from .messages import ARCHIVE_KEY, Message, reference_id
from .pass_sizes import PassSizes
from .plan import CompressionPlan, Preview, describe_plan
from .planning import PlanSetup, checkpoint_estimate, plan_pass
from .redact import redaction_memo
from .refill import with_refill_record
from .result import CompressionResult
from .secret_fields import Span
from .settings import CompressionConfig
from .summarizing import Made, Summarize, Summarizer
from .summary_request import LiveRequests, sent_prefix
from .threshold import Threshold, resolve_threshold
from .tokens import estimate_tokens, message_tokens
from .tool_roles import DEFAULT_TOOL_ROLES, ToolRoles

__all__ = ["ContextCompressor", "Summarize"]


class ContextCompressor:
    """Rewrites a transcript into a smaller one that keeps the live task."""

    def __init__(
        self,
        config: CompressionConfig | None = None,
        *,
        context_length: int,
        summarize: Summarize | None = None,
        clock: Callable[[], float] = time.monotonic,
        today: Callable[[], str] = lambda: date.today().isoformat(),
        summary_input_tokens: int | None = None,
        model: str | None = None,
        tool_roles: ToolRoles = DEFAULT_TOOL_ROLES,
    ) -> None:
        self.config = config or CompressionConfig()
        self.tool_roles = tool_roles  # what each tool does: the agent's registry says
        self.summarize = summarize
        self._model_context_length = int(context_length)
        self.model = model
        self._today = today
        self.guard = Guard(clock=clock)
        self.previous_summary: str | None = None
        self.anchors = Anchors()
        # Tokens every request carries besides the messages (tool schemas): the
        # agent sets this so "under the threshold" means the whole request is.
        self.request_overhead_tokens = 0
        # Provider tokens per estimated token (the agent's calibration): the threshold is in the
        # provider's tokens and the engine counts in estimates, so budgets divide by this and
        # every figure the engine reports is multiplied by it (see `budgets`).
        self.token_scale = 1.0
        # A cap on the transcript excerpt sent to the summarizer, for slow local models.
        self.summary_input_tokens = summary_input_tokens

    # -- sizes -----------------------------------------------------------------

    @property
    def context_length(self) -> int:
        return int(self.config.context_length or self._model_context_length)

    def set_context_length(self, tokens: int) -> None:
        """Adopt a new window (a provider that stated its real limit)."""
        self._model_context_length = int(tokens)

    def set_model(self, model: str, context_length: int) -> None:
        """Adopt another model and its window: the threshold is resolved again (model_thresholds)."""
        self.model = model
        self._model_context_length = int(context_length)

    @property
    def threshold(self) -> Threshold:
        """The threshold in force and the rule that chose it."""
        return resolve_threshold(self.config, self.context_length, self.model)

    @property
    def threshold_tokens(self) -> int:
        return self.threshold.tokens

    @property
    def sizes(self) -> PassSizes:
        """The figures a pass starting now is measured in."""
        return PassSizes(self.context_length, self.threshold_tokens, self.request_overhead_tokens, self.token_scale)

    @property
    def target_tokens(self) -> int:
        """What a request may carry right after a compaction."""
        return self.sizes.target_tokens

    def request_tokens(self, messages_estimate: int) -> int:
        """The whole request for messages of `messages_estimate` estimated tokens (see `PassSizes`)."""
        return self.sizes.request_tokens(messages_estimate)

    # -- gates -----------------------------------------------------------------

    def should_compress(self, prompt_tokens: int) -> bool:
        """Whether an automatic pass should run now."""
        return self.config.enabled and prompt_tokens >= self.threshold_tokens and self.blocked_reason() is None

    def blocked_reason(self) -> str | None:
        """Why automatic compression is held back, or None."""
        if self.guard.cooling_down():
            return f"cooling down for {int(self.guard.cooldown_remaining())} s after a failed summary"
        if self.guard.thrashing():
            return "the last two compressions each saved less than 10%"
        return None

    def reset(self) -> None:
        """A new session: forget the summary, the anchors, the counters and the cooldown."""
        self.previous_summary = None
        self.anchors = Anchors()
        self.guard.reset()

    def fresh(self) -> ContextCompressor:
        """A compressor with the same settings, summarizer and window, and none of this one's state:
        for a pass over another session's transcript (a handoff) that must not touch this one's."""
        twin = ContextCompressor(
            self.config,
            context_length=self._model_context_length,
            summarize=self.summarize,
            clock=self.guard.clock,
            today=self._today,
            summary_input_tokens=self.summary_input_tokens,
            model=self.model,
            tool_roles=self.tool_roles,
        )
        twin.request_overhead_tokens = self.request_overhead_tokens
        twin.token_scale = self.token_scale
        return twin

    # -- the pass --------------------------------------------------------------

    async def compress(
        self,
        messages: list[Message],
        focus_topic: str | None = None,
        force: bool = False,
        live: LiveRequests | None = None,
        upto: int | None = None,
        refills: int = 0,
    ) -> CompressionResult:
        """One compression pass (`plan`, then `execute`); `messages` is never modified.

        `force` is the manual /compress: it ignores the cooldown, prunes even a
        small saving, and always summarizes the middle. Whatever the trigger, a
        pass that summarizes leaves the request at most `target_tokens`, unless
        what cannot shrink is larger (`result.too_large` then says what).
        `live` are the requests the agent built (the one it would send now and
        the one it last sent): when given, the summary is first asked for as an
        extension of one of them, so the provider reads the conversation from
        its cache (see `summary_request`). `upto` is as for `plan`. `refills` is
        recorded on the checkpoint the pass makes: how many compactions in a row
        the context refilled within a turn (see `refill.refill_strikes`).
        """
        sent = sent_prefix(live) if live is not None else None
        plan = self.plan(messages, focus_topic, force=force, sent=sent, upto=upto)
        plan.refills = refills
        return await self.execute(plan, live)

    def plan(
        self,
        messages: list[Message],
        focus_topic: str | None = None,
        *,
        force: bool = False,
        handoff: bool = False,
        sent: int | None = None,
        upto: int | None = None,
    ) -> CompressionPlan:
        """What a pass over `messages` would do, with no model call and no change to any state.

        `handoff` plans the checkpoint that seeds a new session: no opening
        exchange is kept, and the tail starts no earlier than the latest user
        message, so the new session holds the checkpoint and the latest turn.
        `sent` is how many leading messages of `messages` the last request sent
        carried (None when unknown): the messages after them are kept verbatim
        when the tail cap allows, so the summary can extend that request.
        `upto` (`/compress --upto N`, with `force`) summarizes user turns 1..N of
        `messages` and keeps everything after them verbatim (see `turn.upto_problem`).
        """
        setup = PlanSetup(
            self.config,
            self.sizes,
            self.tool_roles,
            self.anchors,
            has_summarizer=self.summarize is not None,
            cooling_down=self.guard.cooling_down,
        )
        redacted: dict[str, list[Span]] = {}
        with redaction_memo(redacted):
            plan = plan_pass(messages, focus_topic, setup, force=force, handoff=handoff, sent=sent, upto=upto)
        plan.redacted = redacted
        return plan

    def preview(
        self,
        messages: list[Message],
        focus_topic: str | None = None,
        *,
        force: bool = True,
        sent: int | None = None,
        upto: int | None = None,
    ) -> Preview:
        """A dry run of `compress` for the user: the plan in numbers, nothing called or changed.

        The size after is exact for a prune and for a checkpoint built by code,
        and an estimate when a model would write the checkpoint: a fifth of
        what it replaces (at most the length it is asked for), plus every
        recorded fact in case it leaves them all out. `sent` and `upto` are as for `plan`.
        """
        plan = self.plan(messages, focus_topic, force=force, sent=sent, upto=upto)
        size = checkpoint_estimate(plan) if plan.summarizes else 0
        return describe_plan(
            plan, self.target_tokens, checkpoint_tokens=size, request_tokens=self.request_tokens, scale=self.token_scale
        )

    async def execute(self, plan: CompressionPlan, live: LiveRequests | None = None) -> CompressionResult:
        """Carry out `plan`: make the checkpoint, reassemble, and update the iterative state."""
        with redaction_memo(plan.redacted):
            return await self._execute(plan, live)

    async def _execute(self, plan: CompressionPlan, live: LiveRequests | None) -> CompressionResult:
        before = self.request_tokens(plan.tokens_before)
        result = CompressionResult(
            messages=plan.messages,
            tokens_before=before,
            tokens_after=before,
            messages_before=len(plan.messages),
            focus_topic=plan.focus,
            target_tokens=self.target_tokens,
            upto=plan.upto,
            turn_shortened=plan.turn.shortened,
        )
        result.archived.update(plan.pruned.archived)
        if plan.pruned_only:
            return self._finish(result, plan, plan.pruned.messages, pruned_only=True, after=sum(plan.sizes))
        self._rehydrate_from(plan.previous)
        if not plan.summarizes:
            return self._finish(
                result,
                plan,
                plan.pruned.messages,
                pruned_only=bool(result.archived),
                after=sum(plan.sizes),
                budgets=plan.budgets,
            )
        return await self._summarize_middle(result, plan, live)

    async def _summarize_middle(
        self, result: CompressionResult, plan: CompressionPlan, live: LiveRequests | None
    ) -> CompressionResult:
        assert plan.bounds is not None and plan.budgets is not None
        budgets, anchors = plan.budgets, plan.anchors
        summarizer = Summarizer(
            self.config,
            self.summarize,
            self.context_length,
            self.summary_input_tokens,
            self.previous_summary,
            self._today(),
            self.token_scale,
        )
        made = await summarizer.make(plan, live, cooling_down=self.guard.cooling_down())
        if made.aborted:
            self.guard.record_failure()
            result.aborted, result.error, result.archived = True, made.error, {}
            return result
        text = with_missing_anchors(made.text or "", anchors)
        rebuilt = with_refill_record(assemble(plan.working, plan.bounds, text, anchors.to_dict()), plan.refills)
        after = estimate_tokens(rebuilt)
        if after >= plan.tokens_before:
            return self._finish(
                result,
                plan,
                plan.pruned.messages,
                pruned_only=bool(result.archived),
                after=sum(plan.sizes),
                error="the summary would not shrink the transcript",
                budgets=budgets,
            )
        middle = plan.middle
        self._adopt(result, made, text, anchors, middle + plan.handoffs)
        result.dropped = len(middle)
        return self._finish(result, plan, rebuilt, after=after, budgets=budgets)

    def _adopt(
        self, result: CompressionResult, made: Made, text: str, anchors: Anchors, removed: list[Message]
    ) -> None:
        """Keep the new checkpoint as state, archive what it replaced, and tell the guard how it went."""
        for msg in removed:
            ref = msg.get(ARCHIVE_KEY) or reference_id(msg)
            if has_handoff(msg) and ref in result.archived:
                # A merged checkpoint carries the id of the message it was merged into, whose own words
                # were just archived under it: the merged whole goes under an id of its own.
                ref = reference_id(msg)
            result.archived.setdefault(ref, msg)
        self.previous_summary, self.anchors = text, anchors
        if not made.fallback:
            self.guard.record_success()
        elif made.error and not made.error.startswith("skipped"):
            self.guard.record_failure()
        result.summary, result.fallback_used, result.error = text, made.fallback, made.error

    def _finish(
        self,
        result: CompressionResult,
        plan: CompressionPlan,
        messages: list[Message],
        *,
        after: int,
        pruned_only: bool = False,
        error: str | None = None,
        budgets: Budgets | None = None,
    ) -> CompressionResult:
        """Settle the result: `after` is the estimate of `messages`; what the result and the guard
        get is the whole request in the provider's tokens, the meter's count."""
        if after >= plan.tokens_before:
            messages, after, result.archived = result.messages, plan.tokens_before, {}
            pruned_only = False
        result.messages, result.tokens_after, result.pruned_only = messages, self.request_tokens(after), pruned_only
        result.error = result.error or error
        if budgets is not None:
            result.too_large = overflow_reason(budgets, after + self.request_overhead_tokens)
        if plan.turn.short_of_room and result.tokens_after >= self.threshold_tokens:
            result.turn_overflow = turn_overflow(result.tokens_after, self.threshold_tokens)
        self.guard.record_pass(result.tokens_before, result.tokens_after)
        return result

    def _rehydrate_from(self, found: tuple[str, dict[str, Any]] | None) -> None:
        """Take the previous summary from the transcript itself when it holds one.

        After a restart, an undo or an edit, the compressor's state may not
        match the session's transcript, which carries the checkpoint the next
        pass must update; without this, the next pass would summarize that
        checkpoint as if it were an ordinary turn.
        """
        if found is None:
            self.previous_summary, self.anchors = None, Anchors()
            return
        body, anchors = found
        self.previous_summary = body
        self.anchors = Anchors.from_dict(anchors) if anchors else self.anchors

    def adopt_transcript(self, messages: list[Message]) -> None:
        """Make the iterative state (previous summary, anchors) that of `messages`' newest checkpoint."""
        self._rehydrate_from(find_previous(messages))

    def edit_checkpoint(self, messages: list[Message], text: str) -> CheckpointEdit:
        """The user's text in place of the newest checkpoint, validated like a model's summary.

        It must fit what this window leaves for a checkpoint and its recorded
        facts. Nothing changes here: once the edited transcript is kept, the
        caller hands it to `adopt_transcript`, so the next pass updates the
        edited version.
        """
        budgets = self.sizes.budgets(messages, [message_tokens(m) for m in messages], self.config.target_ratio)
        return replace_checkpoint(messages, text, limit_tokens=budgets.summary + budgets.anchors)
