"""Asking for a checkpoint, and deciding whether the answer can be trusted.

The requests are tried in order (the cache-aware extension of the live
request, then the serialized prompt on the summary model and, when that is a
separate model, on the main model) until one answer passes every check: the
shape of a checkpoint, the size it may take, and the checks against cut-off,
refused and injected answers (see `summary_checks`). When none does, the
checkpoint is built by code from the recorded facts, and the reasons go with
it to the user.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .anchors import render_anchors
from .failures import describe, should_abort
from .fallback import fallback_checkpoint, model_written
from .messages import Message
from .plan import CompressionPlan
from .redact import redact_secrets
from .settings import CompressionConfig
from .summary_checks import foreign_instruction, reply_problem, user_texts
from .summary_commands import foreign_command
from .summary_prompt import build_prompt, clean_reply, input_budget_chars, rejection_reason, render_turns
from .summary_reply import SummaryReply, as_reply
from .summary_request import LiveRequest, LiveRequests, build_instruction, fits, to_extend
from .tokens import CHARS_PER_TOKEN, estimate_tokens

# (prompt, model or None for the main one) -> the reply; a bare string is a finished reply.
Summarize = Callable[[str, "str | None"], Awaitable["str | SummaryReply"]]
Call = Callable[[], Awaitable["str | SummaryReply"]]
NO_SUMMARIZER = "skipped: no summarizer is configured"
COOLING_DOWN = "skipped: cooling down after a failed summary"


def small_window(room: int, floor: int) -> str:
    """Why no model is asked for a checkpoint that would have `room` provider tokens, under `floor`."""
    return (
        f"skipped: the context window leaves the checkpoint ~{room:,} tokens, under the {floor:,} "
        "(compression.min_summary_tokens) a model summary needs to be worth its calls"
    )


@dataclass
class Made:
    """The checkpoint text one pass got, and how."""

    text: str | None = None
    fallback: bool = False
    aborted: bool = False
    error: str | None = None


@dataclass(frozen=True)
class Summarizer:
    """What a pass needs to ask for a summary: settings, the model, and the state it builds on."""

    config: CompressionConfig
    summarize: Summarize | None
    context_length: int
    input_tokens: int | None  # cap on the excerpt a slow model reads (summary_input_tokens)
    previous: str | None  # the checkpoint this one updates
    today: str
    scale: float = 1.0  # provider tokens per estimated token: the window is in the provider's

    async def make(self, plan: CompressionPlan, live: LiveRequests | None, *, cooling_down: bool) -> Made:
        """A checkpoint for `plan`: the first answer that passes every check, else one built by code."""
        cfg = self.config
        assert plan.budgets is not None
        if plan.small_window:
            return fallback(plan, plan.no_call or "skipped")
        aim = plan.budgets.summary_target(plan.replaced)
        calls = self.calls(plan, aim, live)
        if not calls:
            return fallback(plan, NO_SUMMARIZER)
        if not plan.force and cooling_down:
            return fallback(plan, COOLING_DOWN)
        failures: list[str] = []
        for call in calls:
            try:
                reply = as_reply(await asyncio.wait_for(call(), cfg.summary_timeout))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any summarizer failure is handled, never raised
                if should_abort(exc):
                    return Made(aborted=True, error=describe(exc))
                failures.append(
                    describe(exc)
                    if not isinstance(exc, TimeoutError)
                    else f"no summary within {cfg.summary_timeout:g} s"
                )
                continue
            text = clean_reply(reply.text)
            reason = self.problem(reply, text, plan)
            if reason is None:
                return Made(text=text)
            failures.append(reason)
            if estimate_tokens(text) > plan.budgets.summary:
                break  # over its budget once: another request with the same budget is one more paid miss
        error = "; ".join(dict.fromkeys(failures))  # a reason every attempt gave is said once
        if cfg.abort_on_summary_failure:
            return Made(aborted=True, error=error)
        return fallback(plan, error)

    def problem(self, reply: SummaryReply, text: str, plan: CompressionPlan) -> str | None:
        """Why an answer cannot stand as the checkpoint, or None."""
        assert plan.budgets is not None
        return (
            reply_problem(reply, text)
            or rejection_reason(text, plan.replaced, plan.budgets.summary)
            or foreign_instruction(text, user_texts(plan.working, self.previous))
            or foreign_command(text, plan.messages, self.previous)
        )

    def calls(self, plan: CompressionPlan, aim: int, live: LiveRequests | None) -> list[Call]:
        """The summary requests to try, in order.

        First the cache-aware extension of a live request (see `to_extend` for
        which one), when the main model summarizes, reads fast enough to take the
        whole transcript, and the request fits the window; then the serialized
        prompt on the summary model and, when that is a separate model, on the
        main model. The serialized prompt is built only if it is needed.
        """
        cfg = self.config
        calls: list[Call] = []
        # A model that reads too slowly for a whole transcript gets a capped excerpt instead.
        if live is not None and not cfg.summary_model and not self.input_tokens:
            request, shown = extension(plan, live)
            instruction = build_instruction(
                shown, has_previous=bool(self.previous), focus=plan.focus, budget_tokens=aim, today=self.today
            )
            if fits(request, self._provider(estimate_tokens(instruction)), self._provider(aim), self.context_length):
                calls.append(lambda: request.send(instruction))
        if self.summarize is None:
            return calls
        summarize = self.summarize
        built: list[str] = []  # the serialized prompt, once made

        def serialized(model: str | None) -> Call:
            async def call() -> str | SummaryReply:
                if not built:
                    max_chars = input_budget_chars(int(self.context_length / self.scale), aim)
                    if self.input_tokens:
                        max_chars = min(max_chars, int(self.input_tokens / self.scale) * CHARS_PER_TOKEN)
                    built.append(
                        build_prompt(
                            render_turns(plan.originals, max_chars),
                            previous=self.previous,
                            focus=plan.focus,
                            budget_tokens=aim,
                            today=self.today,
                        )
                    )
                return await summarize(built[0], model)

            return call

        return calls + [serialized(model) for model in [cfg.summary_model] + ([None] if cfg.summary_model else [])]

    def _provider(self, estimate: int) -> int:
        return round(estimate * self.scale)


def extension(plan: CompressionPlan, live: LiveRequests) -> tuple[LiveRequest, list[Message]]:
    """The live request the summary extends, and the kept messages it shows (the instruction says where
    they start).

    The kept tail starts at working message `tail_start`; `plan.positions` maps
    it back to the transcript the agent holds, where the live requests' messages are.
    """
    assert plan.bounds is not None
    start = plan.bounds.tail_start
    cut = plan.positions[start] if start < len(plan.positions) else len(plan.messages)
    request = to_extend(live, cut)
    shown = sum(1 for position in plan.positions[start:] if position < len(request.messages))
    return request, plan.working[start : start + shown]


def fallback(plan: CompressionPlan, reason: str) -> Made:
    """The stand-in checkpoint; the last model-written one rides along in what is left of the two slots."""
    assert plan.budgets is not None
    anchors, removed = plan.anchors, len(plan.middle)
    bare = fallback_checkpoint(anchors, removed=removed, reason=reason, previous=None)
    used = len(bare) + len(render_anchors(anchors.missing_from(bare)))
    room = (plan.budgets.summary + plan.budgets.anchors) * CHARS_PER_TOKEN - used
    previous = model_written(plan.previous[0] if plan.previous else None, room) if room > 0 else None
    text = fallback_checkpoint(anchors, removed=removed, reason=reason, previous=previous) if previous else bare
    return Made(text=redact_secrets(text), fallback=True, error=reason)
