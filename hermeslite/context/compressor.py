"""The compression engine: prune, then summarize the middle, then reassemble.

`ContextCompressor` owns the state that must outlive a single pass (the
previous summary and anchors for iterative updates, the cooldown and the
anti-thrash counters) and nothing else: the LLM arrives as an injected async
callable and the transcript is passed in and handed back, never stored.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import date
from typing import Awaitable, Callable

from .anchors import Anchors, extract_anchors, render_anchors
from .assemble import assemble, previous_junction, unwrap_handoffs
from .boundaries import find_boundaries, latest_user_index
from .budgets import AFTER_COMPACTION, Budgets, Fixed, overflow_reason, plan_budgets
from .failures import describe, should_abort
from .fallback import fallback_checkpoint, model_written
from .guard import Guard
from .handoff import find_previous, has_handoff
from .messages import ARCHIVE_KEY, Message, reference_id
from .prune import prune
from .ranking import fit_anchors
from .redact import redact_secrets
from .result import CompressionResult
from .settings import CompressionConfig
from .summary_prompt import build_prompt, clean_reply, input_budget_chars, rejection_reason, render_turns
from .summary_request import LiveRequest, build_instruction, fits
from .threshold import Threshold, resolve_threshold
from .tokens import CHARS_PER_TOKEN, estimate_tokens, message_tokens

Summarize = Callable[[str, "str | None"], Awaitable[str]]
FOCUS_CHARS = 200


@dataclass
class _Summary:
    text: str | None = None
    fallback: bool = False
    aborted: bool = False
    error: str | None = None


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
    ) -> None:
        self.config = config or CompressionConfig()
        self.summarize = summarize
        self._model_context_length = int(context_length)
        self.model = model
        self._today = today
        self.guard = Guard(clock=clock)
        self.previous_summary: str | None = None
        self.anchors = Anchors()
        self.compression_count = 0
        # Tokens every request carries besides the messages (tool schemas): the
        # agent sets this so "under the threshold" means the whole request is.
        self.request_overhead_tokens = 0
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
    def target_tokens(self) -> int:
        """What a request may carry right after a compaction."""
        return int(self.threshold_tokens * AFTER_COMPACTION)

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
        self.compression_count = 0
        self.guard.reset()

    # -- the pass --------------------------------------------------------------

    async def compress(
        self, messages: list[Message], focus_topic: str | None = None, force: bool = False,
        live: LiveRequest | None = None,
    ) -> CompressionResult:
        """One compression pass; `messages` is never modified.

        `force` is the manual /compress: it ignores the cooldown, prunes even a
        small saving, and always summarizes the middle. Whatever the trigger, a
        pass that summarizes leaves the request at most `target_tokens`, unless
        what cannot shrink is larger (`result.too_large` then says what).
        `live` is the request the agent last built: when given, the summary is
        first asked for as an extension of it, so the provider reads the
        conversation from its cache (see `summary_request`).
        """
        original = list(messages)
        tokens = [message_tokens(m) for m in original]
        before = sum(tokens)
        focus = " ".join((focus_topic or "").split())[:FOCUS_CHARS] or None
        result = CompressionResult(
            messages=original, tokens_before=before, tokens_after=before,
            messages_before=len(original), focus_topic=focus, target_tokens=self.target_tokens,
        )
        cfg = self.config
        pruned = prune(
            original,
            protect_tokens=cfg.protect_tokens_for(self.context_length),
            minimum_tokens=cfg.minimum_prune_for(self.context_length),
            never_prune=frozenset(cfg.never_prune_tools),
            tokens=tokens,
            force=force,
        )
        result.archived.update(pruned.archived)
        # Per-message counts are reused from here on: prune keeps every message it did not change.
        sizes = [t if new is old else message_tokens(new) for new, old, t in zip(pruned.messages, original, tokens)]
        if pruned.archived and not force and sum(sizes) + self.request_overhead_tokens <= self.target_tokens:
            return self._finish(result, pruned.messages, pruned_only=True, after=sum(sizes))

        handoffs = [m for m in pruned.messages if has_handoff(m)]
        self._rehydrate(handoffs)
        return await self._summarize_middle(result, pruned.messages, sizes, handoffs, focus, force, live)

    def _budgets(self, working: list[Message], tokens: list[int]) -> Budgets:
        """Budgets for this pass, after the tool schemas, the system prompt and the latest user message."""
        user_at = latest_user_index(working)
        fixed = Fixed(
            overhead=self.request_overhead_tokens,
            system=tokens[0] if working and working[0].get("role") == "system" else 0,
            user=tokens[user_at] if user_at is not None else 0,
        )
        return plan_budgets(self.threshold_tokens, self.config.target_ratio, fixed)

    async def _summarize_middle(
        self, result: CompressionResult, pruned: list[Message], sizes: list[int], handoffs: list[Message],
        focus: str | None, force: bool, live: LiveRequest | None = None,
    ) -> CompressionResult:
        working = unwrap_handoffs(pruned) if handoffs else pruned
        if handoffs:
            known = {id(m): t for m, t in zip(pruned, sizes)}
            tokens = [known[id(m)] if id(m) in known else message_tokens(m) for m in working]
        else:
            tokens = sizes
        budgets = self._budgets(working, tokens)
        bounds = find_boundaries(
            working,
            tokens,
            protect_first_n=0 if self.previous_summary else self.config.protect_first_n,
            tail_budget=budgets.tail,
            protect_last_n=self.config.protect_last_n,
            force=force,
            tail_floor=previous_junction(pruned) if handoffs else 0,
            head_cap=budgets.head,
            tail_cap=budgets.tail_cap,
        )
        if bounds.empty:
            return self._finish(result, pruned, pruned_only=bool(result.archived), after=sum(sizes), budgets=budgets)
        middle = bounds.middle(working)
        lifted = tokens[bounds.lifted_user] if bounds.lifted_user is not None else 0
        replaced = sum(tokens[bounds.head_end : bounds.tail_start]) - lifted
        replaced += estimate_tokens(self.previous_summary or "")
        originals = [result.archived.get(m[ARCHIVE_KEY], m) if ARCHIVE_KEY in m else m for m in middle]
        anchors = fit_anchors(extract_anchors(originals).merged_with(self.anchors), budgets.anchors)
        made = await self._make_summary(originals, anchors, replaced, budgets, focus, force,
                                        live=live, kept=working[bounds.tail_start:])
        if made.aborted:
            self.guard.record_failure()
            result.aborted, result.error, result.archived = True, made.error, {}
            return result
        text = made.text or ""
        missing = render_anchors(anchors.missing_from(text))
        if missing:
            text = f"{text}\n\n{redact_secrets(missing)}"
        rebuilt = assemble(working, bounds, text, anchors.to_dict())
        after = estimate_tokens(rebuilt)
        if after >= result.tokens_before:
            return self._finish(result, pruned, pruned_only=bool(result.archived), after=sum(sizes),
                                error="the summary would not shrink the transcript", budgets=budgets)
        self._adopt(result, made, text, anchors, middle + handoffs)
        result.dropped = len(middle)
        return self._finish(result, rebuilt, after=after, budgets=budgets)

    def _adopt(self, result: CompressionResult, made: _Summary, text: str, anchors: Anchors,
               removed: list[Message]) -> None:
        """Keep the new checkpoint as state, archive what it replaced, and tell the guard how it went."""
        for msg in removed:
            result.archived.setdefault(msg.get(ARCHIVE_KEY) or reference_id(msg), msg)
        self.previous_summary, self.anchors = text, anchors
        self.compression_count += 1
        if not made.fallback:
            self.guard.record_success()
        elif made.error and not made.error.startswith("skipped"):
            self.guard.record_failure()
        result.summary, result.fallback_used, result.error = text, made.fallback, made.error

    def _finish(
        self, result: CompressionResult, messages: list[Message], *, pruned_only: bool = False,
        error: str | None = None, after: int | None = None, budgets: Budgets | None = None,
    ) -> CompressionResult:
        after = estimate_tokens(messages) if after is None else after
        if after >= result.tokens_before:
            messages, after, result.archived = result.messages, result.tokens_before, {}
            pruned_only = False
        result.messages, result.tokens_after, result.pruned_only = messages, after, pruned_only
        result.error = result.error or error
        if budgets is not None:
            result.too_large = overflow_reason(budgets, after + self.request_overhead_tokens)
        self.guard.record_pass(result.tokens_before, after)
        return result

    def _rehydrate(self, messages: list[Message]) -> None:
        """Take the previous summary from the transcript itself when it holds one.

        After a restart the compressor's state is empty but the session's
        transcript still carries the last handoff; without this, the next pass
        would summarize that handoff as if it were an ordinary turn.
        """
        found = find_previous(messages)
        if found is None:
            self.previous_summary, self.anchors = None, Anchors()
            return
        body, anchors = found
        self.previous_summary = body
        self.anchors = Anchors.from_dict(anchors) if anchors else self.anchors

    async def _make_summary(
        self, middle: list[Message], anchors: Anchors, replaced: int, budgets: Budgets, focus: str | None,
        force: bool, *, live: LiveRequest | None = None, kept: list[Message] | None = None,
    ) -> _Summary:
        cfg = self.config
        aim = budgets.summary_target(replaced)
        calls = self._summary_calls(middle, aim, focus, live, kept or [])
        if not calls:
            return self._fallback(anchors, middle, budgets, "skipped: no summarizer is configured")
        if not force and self.guard.cooling_down():
            return self._fallback(anchors, middle, budgets, "skipped: cooling down after a failed summary")
        failures: list[str] = []
        for call in calls:
            try:
                reply = await asyncio.wait_for(call(), cfg.summary_timeout)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any summarizer failure is handled, never raised
                if should_abort(exc):
                    return _Summary(aborted=True, error=describe(exc))
                failures.append(describe(exc) if not isinstance(exc, TimeoutError) else
                                f"no summary within {cfg.summary_timeout:g} s")
                continue
            text = clean_reply(reply)
            reason = rejection_reason(text, replaced, budgets.summary)
            if reason is None:
                return _Summary(text=text)
            failures.append(reason)
        error = "; ".join(failures)
        if cfg.abort_on_summary_failure:
            return _Summary(aborted=True, error=error)
        return self._fallback(anchors, middle, budgets, error)

    def _summary_calls(
        self, middle: list[Message], aim: int, focus: str | None, live: LiveRequest | None, kept: list[Message],
    ) -> list[Callable[[], Awaitable[str]]]:
        """The summary requests to try, in order.

        First the cache-aware extension of the live request, when the main model
        summarizes, reads fast enough to take the whole transcript, and the
        request fits the window; then the serialized prompt on the summary model
        and, when that is a separate model, on the main model. The serialized
        prompt is built only if it is needed.
        """
        cfg = self.config
        calls: list[Callable[[], Awaitable[str]]] = []
        # A model that reads too slowly for a whole transcript gets a capped excerpt instead.
        if live is not None and not cfg.summary_model and not self.summary_input_tokens:
            instruction = build_instruction(kept, has_previous=bool(self.previous_summary), focus=focus,
                                            budget_tokens=aim, today=self._today())
            if fits(live, estimate_tokens(instruction), aim, self.context_length):
                calls.append(lambda: live.send(instruction))
        if self.summarize is None:
            return calls
        summarize = self.summarize
        built: list[str] = []   # the serialized prompt, once made

        def serialized(model: str | None) -> Callable[[], Awaitable[str]]:
            async def call() -> str:
                if not built:
                    max_chars = input_budget_chars(self.context_length, aim)
                    if self.summary_input_tokens:
                        max_chars = min(max_chars, self.summary_input_tokens * CHARS_PER_TOKEN)
                    built.append(build_prompt(render_turns(middle, max_chars), previous=self.previous_summary,
                                              focus=focus, budget_tokens=aim, today=self._today()))
                return await summarize(built[0], model)
            return call

        return calls + [serialized(model) for model in [cfg.summary_model] + ([None] if cfg.summary_model else [])]

    def _fallback(self, anchors: Anchors, middle: list[Message], budgets: Budgets, reason: str) -> _Summary:
        """The stand-in checkpoint; the last model-written one rides along in what is left of the two slots."""
        bare = fallback_checkpoint(anchors, removed=len(middle), reason=reason, previous=None)
        used = len(bare) + len(render_anchors(anchors.missing_from(bare)))
        room = (budgets.summary + budgets.anchors) * CHARS_PER_TOKEN - used
        previous = model_written(self.previous_summary, room) if room > 0 else None
        text = fallback_checkpoint(anchors, removed=len(middle), reason=reason, previous=previous) if previous else bare
        return _Summary(text=redact_secrets(text), fallback=True, error=reason)
