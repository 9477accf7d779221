"""Where the context goes: the numbers behind /context.

Users cannot steer what they cannot see. This splits the next request into
the parts a user can act on (memory to consolidate, tool output to prune,
conversation to compact) and puts each against the window and the threshold.
The parts are estimates scaled by the calibration the meter uses; the total
is the meter's own count (see `request_size`), so the two never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermeslite.context.handoff import has_handoff
from hermeslite.context.tokens import estimate_tokens, message_tokens

from .project_docs import section_in
from .request_size import RequestTokens
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
    request: RequestTokens  # the next request as the meter counts it, and how it was counted
    threshold_rule: str = ""  # why the threshold is where it is (Threshold.reason)
    window_source: str = ""  # where the window came from, when it is not the looked-up one
    instruction_files: tuple[str, ...] = ()  # the project instruction files (AGENTS.md) read, as shown
    instructions_stale: bool = False  # the system prompt holds other ones (a resumed session's saved prompt)

    @property
    def total(self) -> int:
        return self.request.total

    def percent_of_window(self, tokens: int) -> float:
        return 100.0 * tokens / self.context_length if self.context_length else 0.0


def context_breakdown(agent: Agent) -> ContextBreakdown:
    """System prompt, project instructions, memory, tool schemas (the built-in tools', then a row per
    MCP server whose tools the next request carries), conversation, tool results and summary, in
    tokens. The instructions are measured in the system prompt itself, which a resumed session may
    have saved with older ones than the files on disk."""
    deps = agent.deps
    request = agent.request_size()
    scale = request.calibration.scale
    memory = estimate_tokens(deps.memory.snapshot())
    first = agent.messages[0] if agent.messages and agent.messages[0].get("role") == "system" else {}
    instructions = estimate_tokens(section_in(first.get("content")))
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
    servers = [r for r in deps.mcp.reports(deps.registry) if r.offered] if deps.mcp is not None else []
    schemas = agent.schema_tokens()
    mcp_parts = [Part(f"mcp {r.status.name}", scale(r.tokens)) for r in servers]
    parts = [
        Part("system prompt", scale(max(0, system - memory - instructions))),
        Part("project instructions", scale(instructions)),
        Part("memory", scale(memory)),
        Part("tool schemas", scale(max(0, schemas - sum(r.tokens for r in servers)))),
        *mcp_parts,
        Part("conversation", scale(conversation)),
        Part("tool results", scale(tool_results)),
        Part("summary", scale(summary)),
    ]
    threshold = deps.compressor.threshold
    return ContextBreakdown(
        parts=parts,
        context_length=threshold.context_length,
        threshold=threshold.tokens,
        request=request,
        threshold_rule=threshold.reason(),
        window_source=learned_window_note(deps.llm) or "",
        instruction_files=tuple(deps.instructions.names()),
        instructions_stale=not deps.instructions.in_prompt(first.get("content")),
    )
