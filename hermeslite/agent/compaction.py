"""How the agent compacts, whatever the trigger (preflight, reactive, manual or idle).

The engine in `hermeslite.context` rewrites a transcript; this module runs it
with memory notes asked for in the summary request (or the memory flush),
re-injects the todo list and rebuilds the system prompt with fresh memory. The
agent decides when (preflight, reactive, manual, idle), hands in what its next
request carries, and adopts and saves what comes back, so the three triggers
behave identically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hermeslite.context.compact_requests import CompactRequests
from hermeslite.context.compressor import ContextCompressor
from hermeslite.context.handoff import has_handoff
from hermeslite.context.plan import Preview
from hermeslite.context.pressure import Pressure
from hermeslite.context.refill import REFILL_LIMIT, is_paused, refill_strikes, stamped_checkpoint
from hermeslite.context.result import CompressionResult
from hermeslite.context.summary_request import carried, sent_prefix
from hermeslite.llm.errors import LLMError
from hermeslite.store.todos import attach_snapshot, strip_snapshots
from hermeslite.store.usage import UsageTotals

from . import events as ev
from .deps import AgentDeps
from .flush import flush_memories, user_turns
from .memory_notes import MemoryNotes
from .summarizer import BuiltRequest, live_requests

# What a user can do when the context will not fit, in words that hold in the app, the line chat and -p.
ROOM_HINT = "try /compress <focus> or a new session (with -p: run without --continue)"
FLUSH_FAILED = "Memory flush failed (nothing saved to memory; compaction goes on):"
THRASH_NOTICE = (
    "Compaction is not freeing enough space (two passes each saved under 10%). "
    "Try /compress <focus> to keep only what matters, or start a new session (with -p: run without --continue)."
)
PAUSE_HINT = "/handoff, a model with a bigger window, or /compress <focus> (automatic compaction resumes after it)"
TURN_HINT = (
    "Ask for less output at once (pipe it through head, tail or grep, or write it to a file and read "
    "parts of it), or use a model with a bigger window"
)
TURN_STOPPED = "[turn stopped: its tool output does not fit the context window]"
REFILL_NOTICE = (
    f"Automatic compaction is paused: the last {REFILL_LIMIT} compactions were each full again within one turn, "
    "so each one cost a summary and lost detail for nothing. This task needs more room than the window gives: "
    "/handoff goes on in a new session from a fresh checkpoint, a model with a bigger window (or "
    "model.context_window, if this one allows more) gives it room, and /compress <focus> compacts now keeping "
    "only what matters (automatic compaction resumes after it)."
)
SMALL_WINDOW_NOTICE = (
    "This context window leaves a checkpoint less than compression.min_summary_tokens ({floor:,} tokens), too "
    "little for a useful summary: compactions here write the checkpoint from recorded facts, with no summary "
    "or memory-flush request."
)


def planned_pass(
    compressor: ContextCompressor,
    messages: list[dict[str, Any]],
    last_sent: BuiltRequest | None,
    *,
    focus: str | None = None,
    upto: int | None = None,
) -> Preview:
    """A forced pass over `messages`, planned and described: no model call, no change. Cut as the pass
    itself cuts (what came after the last request sent is kept verbatim when it can be); the caller
    has given the compressor its measures (`Agent.measure_for`)."""
    sent = carried(last_sent.messages, messages) if last_sent is not None else None
    return compressor.preview(strip_snapshots(messages), focus, force=True, sent=sent, upto=upto)


@dataclass(frozen=True)
class NextRequest:
    """What the agent's next request would carry, and the last request the model answered."""

    now: BuiltRequest  # its tokens are the one count (the meter's), tool schemas included
    last_sent: BuiltRequest | None  # a summary may extend it instead, read from the prompt cache


@dataclass(frozen=True)
class RefillCheck:
    """What the refill guard says before an automatic compaction (see `Compaction.refill_check`)."""

    paused: bool  # automatic compaction must not run
    strikes: int  # refills in a row that a compaction now records
    stamp: tuple[int, dict[str, Any]] | None = None  # the latest checkpoint, newly stamped as paused


@dataclass(frozen=True)
class Compacted:
    """One compaction's outcome; the agent adopts and saves `messages`, then calls `report`."""

    trigger: str
    result: CompressionResult
    spent: UsageTotals  # what its summary and memory-flush requests consumed
    messages: list[dict[str, Any]] | None  # the rebuilt transcript; None when nothing changed
    tokens_before: int  # the next request before it, as the meter counted it


class Compaction:
    """The work around one compaction; the agent's state stays the agent's (it is handed in and back)."""

    def __init__(self, deps: AgentDeps, emit: ev.Subscriber) -> None:
        self.deps = deps
        self.emit = emit
        self._told_thrash = False
        self._told_small_window = False
        self.paused = False  # the refill guard stopped automatic compaction (see `refill_check`)
        # The guard on compactions the model asks for with the `context` tool, and its pending request.
        self.requests = CompactRequests()

    def refill_check(self, messages: list[dict[str, Any]]) -> RefillCheck:
        """Whether the refill guard lets an automatic compaction run now, asked once per trigger: its
        count is the transcript's (see context/refill.py). When the guard stops it here for the first
        time, the latest checkpoint is to be stamped so (`stamp`: the agent keeps and saves it), and
        the user is told once per process."""
        strikes = refill_strikes(messages)
        paused = strikes >= REFILL_LIMIT
        stamp = stamped_checkpoint(messages, REFILL_LIMIT) if paused and not is_paused(messages) else None
        if paused and not self.paused:
            self.emit(ev.Notice(REFILL_NOTICE, "warning"))
        self.paused = paused
        return RefillCheck(paused, strikes, stamp)

    async def run(
        self,
        trigger: str,
        request: NextRequest,
        *,
        focus: str | None = None,
        force: bool = False,
        upto: int | None = None,
        refills: int = 0,
    ) -> Compacted:
        """The engine's rewrite of `request.messages` with the memory flush before it; reports the start.

        The summary extends a live request (the last one sent, when it holds
        everything the checkpoint replaces) so the provider reads the
        conversation from its prompt cache, except after an overflow, when the
        live request is what the provider just refused. Memories: an
        extended summary request also asks for memory notes, saved after it
        (see `memory_notes`), so the compaction costs one call; when no
        extension went out or its reply held no notes, the separate memory
        flush runs after the summary, on the turns as they were (after an
        overflow it goes first, as there is no live request to share). An idle
        compaction's extension goes without cache marks: the cache went cold and
        the compaction replaces the prefix, so nothing would read what a mark
        writes (see idle.py). A window that leaves the checkpoint too little for
        a model summary gets neither request (said once per session).
        `upto` and `refills` are as for `ContextCompressor.compress`.
        """
        deps = self.deps
        now = request.now
        before = strip_snapshots(list(now.messages))
        # The card's before and after, and the saved record's, are the meter's count, so they can be
        # read against each other.
        self.emit(ev.CompactionStarted(trigger, focus, len(before), now.tokens))
        notes = MemoryNotes() if self.flush_wanted(list(now.messages)) else None
        live = (
            None
            if trigger == "reactive"
            else live_requests(
                deps.llm,
                now,
                request.last_sent,
                deps.usage,
                deps.settings.compression.summary_timeout,
                notes,
                cache=trigger != "idle",
            )
        )
        spent_before = deps.usage.totals
        compressor = deps.compressor
        plan = compressor.plan(
            before, focus, force=force, sent=sent_prefix(live) if live is not None else None, upto=upto
        )
        plan.refills = refills
        if plan.small_window:
            self._tell_small_window()
        elif live is None:
            await self._flush(list(now.messages), list(now.tools))
        result = await compressor.execute(plan, live)
        if live is not None and not plan.small_window:
            await self._memories(notes, list(now.messages), list(now.tools))
        spent = deps.usage.totals - spent_before
        rebuilt = self.refresh(result.messages) if result.changed and not result.aborted else None
        if rebuilt is not None and trigger == "manual":
            self.paused = is_paused(rebuilt)  # a new checkpoint starts the refill count again
        if rebuilt is not None:
            self.requests = self.requests.compacted(trigger)
        return Compacted(trigger, result, spent, rebuilt, now.tokens)

    def _tell_small_window(self) -> None:
        if not self._told_small_window:
            self._told_small_window = True
            floor = self.deps.compressor.config.min_summary_tokens
            self.emit(ev.Notice(SMALL_WINDOW_NOTICE.format(floor=floor), "warning"))

    def blocked(self, trigger: str, reason: str, request: BuiltRequest) -> CompressionResult:
        """A PreCompact hook said no: the transcript stays as it is, and the user reads why."""
        self.emit(ev.Notice(f"A PreCompact hook stopped the {trigger} compaction: {reason}", "warning"))
        kept = list(request.messages)
        error = f"stopped by a PreCompact hook: {reason}"
        return CompressionResult(kept, request.tokens, request.tokens, len(kept), aborted=True, error=error)

    def report(self, done: Compacted, tokens_after: int, pressure: Pressure) -> None:
        """The end of a compaction the agent has adopted, as events: the card (before and after in the
        meter's count), advice, the new pressure."""
        self.emit(ev.CompactionFinished(done.trigger, done.result, done.tokens_before, tokens_after, done.spent))
        if note := done.result.turn_note():
            self.emit(ev.Notice(note, "warning"))
        if advice := done.result.advice():
            self.emit(ev.Notice(advice, "warning"))
        self.emit(ev.PressureChanged(pressure))
        if self.deps.compressor.guard.thrashing() and not self._told_thrash:
            self._told_thrash = True
            self.emit(ev.Notice(THRASH_NOTICE, "warning"))

    async def _memories(self, notes: MemoryNotes | None, messages: list[dict], tools: list[dict[str, Any]]) -> int:
        """Save the notes the checkpoint request brought back; when it brought none (no extension was
        sent, or its reply had no notes section), run the separate flush on the turns as they were."""
        if notes is None:
            return 0
        if notes.notes is None:
            return await self._flush(messages, tools)
        return await notes.save(self.deps.memory_tool, self.deps.tool_ctx)

    async def _flush(self, messages: list[dict], tools: list[dict[str, Any]]) -> int:
        """The separate memory flush, sent with the live request's tool schemas so it extends that
        request; a failure is one warning line, never a stop."""
        deps = self.deps
        if not self.flush_wanted(messages):
            return 0
        llm = deps.llm
        try:
            return await flush_memories(
                llm,
                messages,
                deps.memory_tool,
                deps.tool_ctx,
                window=deps.compressor.context_length,
                timeout=deps.settings.compression.summary_timeout,
                tools=tools,
                on_usage=lambda usage: deps.usage.record("flush", llm.model, usage),
            )
        except LLMError as exc:
            self.emit(ev.Notice(f"{FLUSH_FAILED} {exc}", "warning"))
            return 0

    def flush_wanted(self, messages: list[dict]) -> bool:
        """Whether a compaction of `messages` runs the memory flush first (one more model call)."""
        deps = self.deps
        wanted = deps.settings.compression.memory_flush and deps.llm.supports_tools
        return bool(wanted) and user_turns(messages) >= deps.settings.memory.flush_min_turns

    def refresh(self, messages: list[dict]) -> list[dict]:
        """Fresh system prompt (memory and the instruction files may have changed) and the todo snapshot
        on the last user turn."""
        deps = self.deps
        out = list(messages)
        if out and out[0].get("role") == "system":
            old_content = out[0].get("content")
            out[0] = deps.system_message(compacted=any(has_handoff(m) for m in out))
            for line in deps.instructions.reload_notes(old_content):
                self.emit(ev.Notice(line, "warning"))
        snapshot = deps.todos.snapshot_text() if deps.settings.compression.todo_snapshot else None
        return attach_snapshot(out, snapshot) if snapshot else out
