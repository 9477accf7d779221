"""The `context` tool (compression.agent_tool): the model sees its context and asks for a compaction.

A model knows when it has finished a sub-task long before the context
reaches the threshold, and what of it is worth keeping. `status` gives it the
numbers the user's meter and /context show; `compact` asks for a compaction
with a focus. The compaction never runs mid-turn (the turn's own tool calls
and results are what the model is working from): it runs after the turn's
final reply, on the same path as `/compress <focus>`, and the agent refuses
requests that would be waste or a loop (context/compact_requests.py).

The tool is handed what it reads and asks through `ContextSteering`, which
the agent implements; the tools layer knows nothing else of the agent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools.base import ToolContext, ToolResult

CONTEXT_DESCRIPTION = """\
See how full your context window is, and ask for it to be compacted. action="status" returns the \
tokens the next request carries, the compaction threshold, the compactions so far, the archive that \
`recall` searches, and whether an automatic compaction is due. action="compact" asks for a compaction \
after your final reply of this turn (never during it): the older conversation is replaced by a \
checkpoint, and `focus` names what the checkpoint must keep in detail. Ask at a natural break, e.g. \
when a sub-task is done and its details are no longer needed; do not ask when the context is small \
or right after a compaction: such requests are refused."""

STATUS = "status"
COMPACT = "compact"


@dataclass(frozen=True)
class ContextStatus:
    """What `status` reports; `automatic` and `requested` are already in words."""

    tokens: int  # the next request, as the meter and /context count it (tool schemas included)
    compactable: int  # of them, the conversation before this turn: what a compaction can replace
    window: int
    threshold: int
    compactions: int  # that changed the transcript, this session
    archived: int  # originals in the session's archive (what `recall` brings back)
    archived_chars: int
    automatic: str  # whether an automatic compaction is due, in words
    requested: str  # the pending request for the end of this turn, in words

    def render(self) -> str:
        """A few lines the model reads: numbers first, each with what it is out of."""
        window_share = self.tokens / self.window if self.window else 0.0
        threshold_share = self.threshold / self.window if self.window else 0.0
        used = self.tokens / self.threshold if self.threshold else 0.0
        return "\n".join(
            (
                f"tokens: {self.tokens:,} in the next request ({window_share:.0%} of the {self.window:,}-token window), "
                f"{self.compactable:,} of them in the conversation before this turn (a compaction replaces those; "
                "this turn is kept whole)",
                f"compaction threshold: {self.threshold:,} tokens ({threshold_share:.0%} of the window); "
                f"the context is at {used:.0%} of it",
                f"compactions this session: {self.compactions}",
                f"archive: {self.archived:,} originals, {self.archived_chars:,} characters (recall searches them)",
                f"automatic compaction: {self.automatic}",
                f"requested compaction: {self.requested}",
            )
        )


class ContextSteering(Protocol):
    """What the `context` tool needs of the agent."""

    def context_status(self) -> ContextStatus: ...

    def request_compaction(self, focus: str | None) -> str | None:
        """Record a request for a compaction after the turn's final reply; None when accepted, else
        why it is refused."""
        ...


class ContextTool:
    """`context(action="status")` reports; `context(action="compact", focus=...)` asks for a compaction."""

    name = "context"
    role: ToolRole | None = None
    writes = False  # it changes the transcript after the turn, never a file: plan mode offers it
    description = CONTEXT_DESCRIPTION
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": [STATUS, COMPACT], "description": "status or compact"},
            "focus": {
                "type": "string",
                "description": "compact only: what the checkpoint must keep in detail, e.g. the open bug in the parser",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    }

    def __init__(self, steering: Callable[[], ContextSteering]) -> None:
        self.steering = steering  # a getter: the agent is built after its tools

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        action = str(args.get("action") or "").strip().lower()
        focus = " ".join(str(args.get("focus") or "").split()) or None
        if action == STATUS:
            return ToolResult(self.steering().context_status().render())
        if action != COMPACT:
            return ToolResult.error(f'action must be "{STATUS}" or "{COMPACT}", got {action!r}')
        refusal = self.steering().request_compaction(focus)
        if refusal is not None:
            return ToolResult.error(f"compaction refused: {refusal}")
        kept = f', keeping "{focus}" in detail' if focus else ""
        return ToolResult(
            f"Compaction requested: it runs after your final reply of this turn{kept}. Finish the turn as "
            "you would; the next turn starts from the checkpoint."
        )
