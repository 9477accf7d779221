"""The memory flush: one last chance to save durable facts before turns are compacted.

A summary keeps the task; it is the wrong place for "the user prefers tabs"
or "the build needs Python 3.12", which should outlive the session. So before
compacting, the model gets one call with only the memory tool. Nothing from
that call stays in the transcript.
"""

from __future__ import annotations

import json
from typing import Any

from hermeslite.context.messages import strip_private
from hermeslite.llm.errors import LLMError
from hermeslite.llm.types import LLMClient
from hermeslite.tools.base import Tool, ToolContext

FLUSH_INSTRUCTION = (
    "[hermeslite: the earlier part of this conversation is about to be condensed to save space. Before that "
    "happens, use the memory tool to save anything worth keeping beyond this session: the user's preferences "
    "and corrections, recurring patterns, facts about their environment. Skip task progress (the summary keeps "
    "that) and anything already in memory. If nothing is worth saving, reply 'nothing to save'.]"
)


def user_turns(messages: list[dict[str, Any]]) -> int:
    return sum(1 for m in messages if m.get("role") == "user")


async def flush_memories(
    llm: LLMClient, messages: list[dict[str, Any]], memory_tool: Tool, ctx: ToolContext, *, timeout: float
) -> int:
    """Ask the model what to save and apply its memory calls; returns how many were applied.

    Failures are swallowed: a flush that cannot run must never stop the
    compaction it precedes.
    """
    request = strip_private(messages) + [{"role": "user", "content": FLUSH_INSTRUCTION}]
    schema = {"type": "function", "function": {
        "name": memory_tool.name, "description": memory_tool.description, "parameters": memory_tool.parameters}}
    try:
        completion = await llm.complete(request, tools=[schema], timeout=timeout)
    except LLMError:
        return 0
    applied = 0
    for call in completion.message.get("tool_calls") or []:
        function = call.get("function") or {}
        if function.get("name") != memory_tool.name:
            continue
        try:
            args = json.loads(function.get("arguments") or "{}")
        except ValueError:
            continue
        if isinstance(args, dict) and not (await memory_tool.run(args, ctx)).is_error:
            applied += 1
    return applied
