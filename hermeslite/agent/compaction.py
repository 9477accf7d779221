"""When and how the agent compacts: preflight, reactive and manual.

The engine in `hermeslite.context` rewrites a transcript; this module decides
when to ask it, runs the memory flush before it, and afterwards re-injects the
todo list, rebuilds the system prompt with fresh memory, and saves everything,
so the three triggers behave identically.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermeslite.context.handoff import has_handoff
from hermeslite.context.result import CompressionResult
from hermeslite.llm.errors import LLMError
from hermeslite.store.sessions import CompactionRecord
from hermeslite.store.todos import attach_snapshot, strip_snapshots

from . import events as ev
from .flush import flush_memories, user_turns
from .summarizer import live_requests

if TYPE_CHECKING:
    from .loop import Agent

FLUSH_FAILED = "Memory flush failed (nothing saved to memory; compaction goes on):"
THRASH_NOTICE = (
    "Compaction is not freeing enough space (two passes each saved under 10%). "
    "Try /compress <focus> to keep only what matters, or /new to start fresh."
)


class Compaction:
    def __init__(self, agent: "Agent") -> None:
        self.agent = agent
        self._told_thrash = False

    async def preflight(self) -> None:
        """Before a request: compress while the next request (the count the meter shows) is at or
        over the threshold, up to max_passes."""
        agent, compressor = self.agent, self.agent.deps.compressor
        for _ in range(compressor.config.max_passes):
            if not compressor.should_compress(agent.request_tokens()):
                return
            result = await self.run("preflight")
            if result.aborted or not result.changed or result.too_large:
                return

    async def run(self, trigger: str, *, focus: str | None = None, force: bool = False) -> CompressionResult:
        """One compaction with everything around it; reports start and finish as events.

        The summary extends a live request (the last one sent, when it holds
        everything the checkpoint replaces) so the provider reads the
        conversation from its prompt cache, except after an overflow, when the
        live request is what the provider just refused; the memory flush
        carries the current request's tool schemas (see `flush`). The flush
        goes first and the summary after it: a summary that must extend the
        current request (the cut lies among turns no request carried yet) then
        reads from the cache the turns the flush has just written there. Sent
        at once, each would write them again (a cache entry is there only once
        a response has begun).
        """
        agent = self.agent
        deps = agent.deps
        before = strip_snapshots(agent.messages)
        agent.measure_for(deps.compressor)
        # The card's before and after, and the saved record's, are the meter's count, so they can be
        # read against each other.
        tokens_before = agent.request_tokens()
        agent.emit(ev.CompactionStarted(trigger, focus, len(before), tokens_before))
        live = None if trigger == "reactive" else live_requests(
            deps.llm, agent.build_request(), agent.last_sent, deps.usage, deps.settings.compression.summary_timeout)
        spent_before = deps.usage.totals
        await self._flush(list(agent.messages))
        result = await deps.compressor.compress(before, focus_topic=focus, force=force, live=live)
        spent = deps.usage.totals - spent_before
        if result.changed and not result.aborted:
            rebuilt = self.refresh(result.messages)
            agent.adopt_transcript(rebuilt)
            result.tokens_before, result.tokens_after = tokens_before, agent.request_tokens()
            agent.saver.compaction(rebuilt, result.archived, CompactionRecord.from_result(result, trigger))
        else:
            agent.saver.record(CompactionRecord.from_result(result, trigger))
        agent.emit(ev.CompactionFinished(trigger, result, tokens_before, agent.request_tokens(), spent))
        if advice := result.advice():
            agent.emit(ev.Notice(advice, "warning"))
        agent.emit(ev.PressureChanged(agent.pressure()))
        if deps.compressor.guard.thrashing() and not self._told_thrash:
            self._told_thrash = True
            agent.emit(ev.Notice(THRASH_NOTICE, "warning"))
        return result

    async def _flush(self, messages: list[dict]) -> int:
        """The memory flush before the summary, sent with the live request's tool schemas so it
        extends that request; a failure is one warning line, never a stop."""
        agent = self.agent
        deps = agent.deps
        if not self.flush_wanted(messages):
            return 0
        llm = deps.llm
        try:
            return await flush_memories(
                llm, messages, deps.memory_tool, deps.tool_ctx, window=deps.compressor.context_length,
                timeout=deps.settings.compression.summary_timeout, tools=agent.tool_schemas(),
                on_usage=lambda usage: deps.usage.record("flush", llm.model, usage))
        except LLMError as exc:
            agent.emit(ev.Notice(f"{FLUSH_FAILED} {exc}", "warning"))
            return 0

    def flush_wanted(self, messages: list[dict]) -> bool:
        """Whether a compaction of `messages` runs the memory flush first (one more model call)."""
        deps = self.agent.deps
        wanted = deps.settings.compression.memory_flush and deps.llm.supports_tools
        return bool(wanted) and user_turns(messages) >= deps.settings.memory.flush_min_turns

    def refresh(self, messages: list[dict]) -> list[dict]:
        """Fresh system prompt (memory may have changed) and the todo snapshot on the last user turn."""
        deps = self.agent.deps
        out = list(messages)
        if out and out[0].get("role") == "system":
            out[0] = deps.system_message(compacted=any(has_handoff(m) for m in out))
        snapshot = deps.todos.snapshot_text() if deps.settings.compression.todo_snapshot else None
        return attach_snapshot(out, snapshot) if snapshot else out

