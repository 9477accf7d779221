"""The `memory` tool: the model's handle on MEMORY.md and USER.md.

The files, their limits and the locking live in store/memory.py; this module
is what the model sees (schema, description) and how its arguments become
store edits and result text.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from hermeslite.context.tool_roles import ToolRole
from hermeslite.store.memory import MemoryResult, MemoryStore, MemoryUnreadable
from hermeslite.tools.base import ToolContext, ToolResult

MEMORY_DESCRIPTION = """\
Save durable notes that persist across sessions; they are shown to you at the start of every session \
(and after context compaction). Two files, each with a character limit:
- target "user" (USER.md): about the user: their preferences, how they like to work, corrections they \
gave you ("don't use X", "always run Y first"), their role and expertise.
- target "memory" (MEMORY.md, default): your own notes: environment facts (OS, tools, paths, commands \
that work), project conventions, recurring patterns and pitfalls, lessons learned the hard way.
Do NOT save task progress, todo items, or things only relevant to the current conversation: those are \
kept elsewhere. Keep entries short and specific, one fact per entry.
Actions: add (content), replace (old_text = a short unique substring of the entry, content = the new \
entry), remove (old_text). When a file is full, consolidate with replace/remove before adding."""


class MemoryTool:
    """The `memory` tool: add, replace or remove entries of MEMORY.md / USER.md."""

    name = "memory"
    role: ToolRole | None = None  # nothing the compaction engine treats specially
    writes = False  # MEMORY.md and USER.md live in the data dir, not in the project
    description = MEMORY_DESCRIPTION
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "replace", "remove"], "description": "what to do"},
            "target": {
                "type": "string",
                "enum": ["memory", "user"],
                "default": "memory",
                "description": "memory: your notes (MEMORY.md); user: about the user (USER.md)",
            },
            "content": {"type": "string", "description": "the entry text (add, replace)"},
            "old_text": {
                "type": "string",
                "description": "short unique substring identifying the entry to change (replace, remove)",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    }

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            result = await asyncio.to_thread(self._dispatch, args if isinstance(args, dict) else {})
        except MemoryUnreadable as exc:
            return ToolResult.error(str(exc))
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            return ToolResult.error(f"could not update memory{where}: {exc.strerror or exc}")
        if result.ok:
            return ToolResult(result.message)
        return ToolResult.error(result.message)

    def _dispatch(self, args: dict[str, Any]) -> MemoryResult:
        action = args.get("action")
        target = args.get("target") or "memory"
        content = args.get("content")
        old_text = args.get("old_text")
        if action == "add":
            return self.store.add(target, content)  # type: ignore[arg-type]  # the model's values: the store rejects bad ones
        if action == "replace":
            return self.store.replace(target, old_text, content)  # type: ignore[arg-type]  # the model's values: the store rejects bad ones
        if action == "remove":
            return self.store.remove(target, old_text)  # type: ignore[arg-type]  # the model's values: the store rejects bad ones
        return MemoryResult(False, f"unknown action {action!r}: use add, replace or remove.")
