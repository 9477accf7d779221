"""Where the context goes: the numbers behind /context.

Users cannot steer what they cannot see. This splits the next request into
the parts a user can act on (memory to consolidate, tool output to prune,
conversation to compact) and puts each against the window and the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermeslite.context.handoff import has_handoff
from hermeslite.context.tokens import estimate_tokens, message_tokens

from .window import learned_window_note


if TYPE_CHECKING:
    from .loop import Agent


@dataclass(frozen=True)
class Part:
    name: str
    tokens: int


@dataclass(frozen=True)
class ContextBreakdown:
    parts: list[Part]
    context_length: int
    threshold: int
    threshold_rule: str = ""  # why the threshold is where it is (Threshold.reason)
    window_source: str = ""   # where the window came from, when it is not the looked-up one

    @property
    def total(self) -> int:
        return sum(p.tokens for p in self.parts)

    def percent_of_window(self, tokens: int) -> float:
        return 100.0 * tokens / self.context_length if self.context_length else 0.0


def context_breakdown(agent: "Agent") -> ContextBreakdown:
    """System prompt, memory, tool schemas, conversation, tool results and summary, in tokens."""
    deps = agent.deps
    memory = estimate_tokens(deps.memory.snapshot())
    system = 0
    conversation = tool_results = summary = 0
    for msg in agent.messages:
        tokens = message_tokens(msg)
        role = msg.get("role")
        if role == "system":
            system += tokens
        elif has_handoff(msg):
            summary += tokens
        elif role == "tool":
            tool_results += tokens
        else:
            conversation += tokens
    parts = [
        Part("system prompt", max(0, system - memory)),
        Part("memory", memory),
        Part("tool schemas", agent.schema_tokens()),
        Part("conversation", conversation),
        Part("tool results", tool_results),
        Part("summary", summary),
    ]
    threshold = deps.compressor.threshold
    return ContextBreakdown(parts=parts, context_length=threshold.context_length, threshold=threshold.tokens,
                            threshold_rule=threshold.reason(), window_source=learned_window_note(deps.llm) or "")
