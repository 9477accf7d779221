"""When the agent compacts, and how a pass lands in the live session.

`Compaction` (compaction.py) runs one pass. This module decides when one runs,
before a request (preflight, and idle when the prompt cache went cold), after
the turn's final reply (the model asked with the `context` tool), on /compress,
and by the turn loop when the provider refuses a request (reactive), and carries
the result into the session: PreCompact and PostCompact hooks around the pass,
the rewrite adopted by the agent and saved, the refill guard's stamp written on
the checkpoint so a pause holds in the next process too.
"""

from __future__ import annotations

from typing import Any, Protocol

from hermeslite.context.compact_requests import AGENT_TRIGGER
from hermeslite.context.compressor import ContextCompressor
from hermeslite.context.plan import Preview
from hermeslite.context.pressure import Pressure
from hermeslite.context.result import CompressionResult
from hermeslite.store.sessions import CompactionRecord

from . import events as ev
from .compaction import Compaction, NextRequest, planned_pass
from .deps import AgentDeps
from .idle import idle_notice, idle_state
from .ledger import TokenLedger
from .saving import SessionSaver
from .summarizer import BuiltRequest


class CompactingAgent(Protocol):
    """What the triggers read and change of the agent they serve (agent/loop.py's `Agent`)."""

    deps: AgentDeps
    messages: list[dict[str, Any]]
    ledger: TokenLedger
    saver: SessionSaver
    compaction: Compaction
    last_sent: BuiltRequest | None

    def emit(self, event: ev.Event) -> None: ...
    def request_tokens(self) -> int: ...
    def build_request(self) -> BuiltRequest: ...
    def measure_for(self, compressor: ContextCompressor) -> None: ...
    def adopt_transcript(self, messages: list[dict[str, Any]]) -> None: ...
    def pressure(self) -> Pressure: ...


class CompactionTriggers:
    """The agent's compaction decisions; it holds no state of its own beyond the agent it serves."""

    def __init__(self, agent: CompactingAgent) -> None:
        self._agent = agent

    async def preflight(self) -> str | None:
        """Before a request: compact if the session sat past its prompt cache's lifetime (`idle`),
        then compress while the next request (the count the meter shows) is at or over the
        threshold, up to max_passes, unless the refill guard has paused automatic compaction.
        Returns why the turn in progress cannot go on (its own tool output does not fit even cut
        to head and tail), else None."""
        if (too_large := await self.idle()) is not None:
            return too_large
        agent = self._agent
        compressor = agent.deps.compressor
        refills: int | None = None  # counted once per trigger, not once per pass
        for _ in range(compressor.config.max_passes):
            if not compressor.should_compress(agent.request_tokens()):
                return None
            if refills is None:
                paused, refills = self.refill_check()
                if paused:
                    return None
            result = await self.compact("preflight", refills=refills)
            if result.turn_overflow:
                return result.turn_overflow
            if result.aborted or not result.changed or result.too_large:
                return None
        return None

    async def idle(self) -> str | None:
        """Compact once when the prompt cache went cold while the session sat, the context is most of
        the way to the threshold and the compaction costs less than the cold prefix (see agent/idle.py);
        the refill guard and a cooldown hold it back as they hold preflight. Returns what `preflight`
        returns."""
        agent = self._agent
        state = await idle_state(agent.deps, agent.request_tokens(), self.planned)
        if state is None or self.refill_check()[0]:
            return None
        agent.emit(ev.Notice(idle_notice(state), "information"))
        # Under the threshold a pass that may only prune would keep the long prefix: summarize the middle.
        # It starts no refill count: the context did not refill, the cache went cold.
        return (await self.compact("idle", force=True)).turn_overflow

    async def requested(self, finished: ev.TurnFinished) -> None:
        """The compaction the model asked for with the `context` tool, run now that the turn's reply
        is final, as /compress with its focus would; a turn that ended without one drops it."""
        compaction = self._agent.compaction
        requests = compaction.requests
        compaction.requests = requests.taken()
        if requests.pending and finished.ok:
            await self.compact(AGENT_TRIGGER, focus=requests.focus, force=True)

    def planned(self) -> Preview:
        """A forced compaction now, planned (as /compress previews it): no call, no change."""
        agent = self._agent
        agent.measure_for(agent.deps.compressor)
        return planned_pass(agent.deps.compressor, agent.messages, agent.last_sent)

    def refill_check(self) -> tuple[bool, int]:
        """(automatic compaction paused, refills in a row to record): see `Compaction.refill_check`;
        a pause is stamped on the checkpoint, so it holds in the next process too."""
        agent = self._agent
        check = agent.compaction.refill_check(agent.messages)
        if check.stamp is not None:
            at, message = check.stamp
            agent.messages[at] = message
            agent.ledger.replace(at, message)
            agent.saver.replace_checkpoint(message)
        return check.paused, check.strikes

    async def compact(
        self,
        trigger: str,
        *,
        focus: str | None = None,
        force: bool = False,
        upto: int | None = None,
        refills: int = 0,
    ) -> CompressionResult:
        """One compaction (see `Compaction`), unless a PreCompact hook stops it: its rewrite adopted
        and saved, then reported."""
        agent = self._agent
        hooks = agent.deps.hooks
        gate = await hooks.pre_compact(trigger, focus)
        if gate.block is not None:
            return agent.compaction.blocked(trigger, gate.block, agent.build_request())
        agent.measure_for(agent.deps.compressor)
        request = NextRequest(agent.build_request(), agent.last_sent)
        done = await agent.compaction.run(trigger, request, focus=gate.focus, force=force, upto=upto, refills=refills)
        result = done.result
        if done.messages is not None:
            agent.adopt_transcript(done.messages)
            result.tokens_before, result.tokens_after = done.tokens_before, agent.request_tokens()
            agent.saver.compaction(done.messages, result.archived, CompactionRecord.from_result(result, trigger))
        else:
            agent.saver.record(CompactionRecord.from_result(result, trigger))
        agent.compaction.report(done, agent.request_tokens(), agent.pressure())
        if done.messages is not None:  # a compaction that changed nothing has nothing to report after it
            await hooks.post_compact(trigger, result.summary)
        return result
