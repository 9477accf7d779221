"""The agent's side of the `context` tool (tools/context_tool.py): its numbers, and the guard on requests.

`status` reads the same counts the meter and /context show (the request size,
the threshold) and what the store keeps (compaction records, the archive).
A `compact` request is judged by the guard (context/compact_requests.py) and
recorded on the agent's `Compaction`; the loop runs it after the turn's
final reply (`Agent.run_turn`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermeslite.context.tokens import estimate_tokens
from hermeslite.context.turn import turn_start
from hermeslite.tools.context_tool import ContextStatus

if TYPE_CHECKING:
    from .loop import Agent

PAUSED_REFUSAL = (
    "automatic compaction is paused (the last compactions each refilled within one turn), so compacting again "
    "would only repeat that; the user decides what comes next (/handoff, a bigger window, /compress)"
)


class AgentSteering:
    """The agent as the `context` tool sees it (implements `ContextSteering`)."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    def context_status(self) -> ContextStatus:
        agent = self._agent
        compressor = agent.deps.compressor
        records = agent.deps.store.compactions(agent.session_id)
        archived, chars = agent.deps.store.archive_size(agent.session_id)
        return ContextStatus(
            tokens=agent.request_tokens(),
            compactable=self._compactable(),
            window=compressor.context_length,
            threshold=compressor.threshold_tokens,
            compactions=sum(1 for r in records if not r.aborted and r.tokens_after < r.tokens_before),
            archived=archived,
            archived_chars=chars,
            automatic=self._automatic(),
            requested=self._requested(),
        )

    def _compactable(self) -> int:
        """Tokens of the conversation before the turn in progress (what a compaction can replace: the
        turn itself is kept whole), in the meter's units; the system prompt is not counted."""
        agent = self._agent
        messages = agent.messages
        start = turn_start(messages)
        before = messages[1 if messages and messages[0].get("role") == "system" else 0 : start or 0]
        return agent.size.calibration.scale(estimate_tokens(before)) if before else 0

    def _automatic(self) -> str:
        agent = self._agent
        compressor = agent.deps.compressor
        if not compressor.config.enabled:
            return "off (compression.enabled: false)"
        if agent.compaction.paused:
            return "paused: the last compactions each refilled within one turn"
        if compressor.should_compress(agent.request_tokens()):
            return "due before the next request (the context has reached the threshold)"
        return f"not due; it runs when the next request reaches {compressor.threshold_tokens:,} tokens"

    def _requested(self) -> str:
        requests = self._agent.compaction.requests
        if not requests.pending:
            return "none"
        kept = f', focus "{requests.focus}"' if requests.focus else ""
        return f"pending, after the final reply of this turn{kept}"

    def request_compaction(self, focus: str | None) -> str | None:
        agent = self._agent
        compaction = agent.compaction
        if compaction.paused:
            return PAUSED_REFUSAL
        refusal = compaction.requests.refusal(self._compactable(), agent.deps.compressor.threshold_tokens)
        if refusal is None:
            compaction.requests = compaction.requests.requested(focus)
        return refusal
