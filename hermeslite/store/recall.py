"""The `recall` tool: bring back an original that compaction pruned or removed.

Pruned placeholders end with `[pruned; recall id r0123456789]`; the original
is in the session archive under that id. The model gets the text back (capped,
keeping head and tail) in a tool result, which later pruning may archive again.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermeslite.context.messages import (
    Message,
    call_arguments,
    call_id,
    call_name,
    image_parts,
    text_of,
    tool_calls_of,
)
from hermeslite.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from .sessions import SessionStore

RECALL_LIMIT = 30_000
_REF_RE = re.compile(r"\br[0-9a-f]{10}\b")

RECALL_DESCRIPTION = """\
Bring back the full original of something context compaction shortened or removed. Placeholders \
such as "[pruned; recall id r0123456789]" or "…[truncated N chars; recall id r0123456789]" carry the \
id. Use it only when you need the exact original (e.g. a file's content or a command's full output) \
and cannot cheaply re-run the tool."""


def render_original(msg: Message, tool_name: str | None = None) -> str:
    """An archived message as text for the model, with a line saying what it was."""
    role = str(msg.get("role") or "message")
    text = text_of(msg.get("content"))
    if role == "tool":
        head = f"[original output of {tool_name or msg.get('name') or 'a tool'} call {msg.get('tool_call_id', '?')}]"
    else:
        head = f"[original {role} message]"
    lines = [head]
    if text:
        lines.append(text)
    for call in tool_calls_of(msg):
        lines.append(f"[tool call {call_id(call)}: {call_name(call)} with arguments {call_arguments(call)}]")
    images = image_parts(msg.get("content"))
    if images:
        lines.append(f"[{images} image(s) in the original cannot be returned as text]")
    if len(lines) == 1:
        lines.append("(the original had no text)")
    return "\n".join(lines)


def cap(text: str, limit: int = RECALL_LIMIT) -> str:
    """`text`, or its head and tail with a note in between when longer than `limit`."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return (
        text[:head]
        + f"\n…[{cut} of {len(text)} chars omitted: recall returns at most {limit} chars]…\n"
        + text[-tail:]
    )


class RecallTool:
    """`recall(id)`: the archived original of a pruned message in the current session."""

    name = "recall"
    description = RECALL_DESCRIPTION
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "the recall id from the placeholder, e.g. r0123456789"},
        },
        "required": ["id"],
        "additionalProperties": False,
    }

    def __init__(
        self,
        store: "SessionStore",
        session_id_getter: Callable[[], str | None],
        limit: int = RECALL_LIMIT,
    ) -> None:
        self.store = store
        self.session_id_getter = session_id_getter
        self.limit = limit

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw = str((args or {}).get("id") or "").strip() if isinstance(args, dict) else ""
        if not raw:
            return ToolResult("error: give the recall id, e.g. r0123456789", is_error=True)
        match = _REF_RE.search(raw)
        ref = match.group(0) if match else raw
        session_id = self.session_id_getter()
        if not session_id:
            return ToolResult("error: there is no saved session to recall from", is_error=True)
        try:
            return await asyncio.to_thread(self._recall, session_id, ref)
        except Exception as exc:  # a locked or broken database must not end the turn
            return ToolResult(f"error: could not read the session archive: {exc}", is_error=True)

    def _recall(self, session_id: str, ref: str) -> ToolResult:
        original = self.store.recall(session_id, ref)
        if original is None:
            return ToolResult(
                f"error: nothing archived under {ref!r} in this session; copy the id exactly from the "
                "placeholder (r followed by 10 hex digits)",
                is_error=True,
            )
        tool_name = None
        if original.get("role") == "tool" and not original.get("name"):
            call = self.store.find_tool_call(session_id, str(original.get("tool_call_id") or ""))
            tool_name = call_name(call) if call else None
        return ToolResult(cap(render_original(original, tool_name), self.limit))
