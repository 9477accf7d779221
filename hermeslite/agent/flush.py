"""The memory flush: one last chance to save durable facts before turns are compacted.

A summary keeps the task; it is the wrong place for "the user prefers tabs"
or "the build needs Python 3.12", which should outlive the session. So before
compacting, the model gets one call asking it to use only the memory tool.
Nothing from that call stays in the transcript.

The flush runs exactly when the transcript is too big (or, reactively, when
the provider already refused it), so it cannot simply send the transcript:
a 20,000-message session made a 6.8 MB request that no window accepts. While
the transcript fits the window with room for the reply it is sent as it is
with the tool schemas of the live request, so it extends that request byte
for byte and a provider with prompt caching reads it from its cache; beyond
that the model reads an excerpt instead: the previous checkpoint (what was
compacted before) and the turns since, trimmed to fit, with secrets masked.
Only memory calls are applied, whatever else the model calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hermeslite.context.handoff import find_previous
from hermeslite.context.messages import strip_private
from hermeslite.context.summary_prompt import render_turns
from hermeslite.context.tokens import CHARS_PER_TOKEN, estimate_tokens
from hermeslite.llm.types import LLMClient, Usage
from hermeslite.tools.base import Tool, ToolContext, function_schema

FLUSH_INSTRUCTION = (
    "[hermeslite: the earlier part of this conversation is about to be condensed to save space. Before that "
    "happens, use the memory tool (and no other tool) to save anything worth keeping beyond this session: the "
    "user's preferences and corrections, recurring patterns, facts about their environment. Skip task progress "
    "(the summary keeps that) and anything already in memory. If nothing is worth saving, reply 'nothing to save'.]"
)
EXCERPT_INTRO = (
    "[hermeslite: this conversation is too long to show whole. Below are the checkpoint of its earlier part "
    "and its later turns, trimmed.]"
)
# Left free in the window for the flush's reply: a few memory calls or "nothing to save". The flush runs
# when the live request has passed the compaction threshold, and one tool result can take it to 95% of
# an 8k window; the excerpt it once got instead (above 85% of the window) was never in the provider's
# cache and cost several times what the extension costs.
FLUSH_REPLY_TOKENS = 512
# Of the window, for everything an excerpt request carries: the excerpt's own text is mostly quoted
# turns, whose real count runs above the estimate, so it keeps a wider margin.
EXCERPT_WINDOW_SHARE = 0.85
CHECKPOINT_SHARE = 0.4  # of the excerpt, at most, for the previous checkpoint
MIN_EXCERPT_CHARS = 2_000


def user_turns(messages: list[dict[str, Any]]) -> int:
    return sum(1 for m in messages if m.get("role") == "user")


def flush_request(messages: list[dict[str, Any]], window: int, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages the flush sends with `tools`: the transcript while it fits `window` with room for the
    reply, else an excerpt."""
    instruction = {"role": "user", "content": FLUSH_INSTRUCTION}
    plain = strip_private(messages)
    fixed = estimate_tokens(json.dumps(tools)) + estimate_tokens(instruction)
    if estimate_tokens(plain) <= window - FLUSH_REPLY_TOKENS - fixed:
        return [*plain, instruction]
    budget = int(window * EXCERPT_WINDOW_SHARE) - fixed
    system = plain[:1] if plain and plain[0].get("role") == "system" else []
    chars = max(
        MIN_EXCERPT_CHARS, (budget - estimate_tokens(system) - estimate_tokens(EXCERPT_INTRO)) * CHARS_PER_TOKEN
    )
    parts = [EXCERPT_INTRO]
    previous = find_previous(messages)
    if previous is not None:
        checkpoint = _trim(previous[0], int(chars * CHECKPOINT_SHARE))
        parts.append(f"EARLIER CHECKPOINT:\n<<<\n{checkpoint}\n>>>")
        chars -= len(checkpoint)
    parts.append(f"LATER TURNS:\n<<<\n{render_turns(messages[len(system) :], chars)}\n>>>")
    parts.append(FLUSH_INSTRUCTION)
    return [*system, {"role": "user", "content": "\n\n".join(parts)}]


def _trim(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n…[{len(text) - limit} characters cut]"


async def flush_memories(
    llm: LLMClient,
    messages: list[dict[str, Any]],
    memory_tool: Tool,
    ctx: ToolContext,
    *,
    window: int,
    timeout: float,
    tools: list[dict[str, Any]] | None = None,
    on_usage: Callable[[Usage], None] | None = None,
) -> int:
    """Ask the model what to save and apply its memory calls; returns how many were applied.

    `tools` are the schemas the live request carries (sending the same ones
    keeps the request an extension of it); without them only the memory
    tool's schema is sent. `on_usage` hears what the call consumed. A failed
    call raises its `LLMError`; the caller reports it and compacts anyway.
    """
    schemas = tools or [function_schema(memory_tool)]
    completion = await llm.complete(flush_request(messages, window, schemas), tools=schemas, timeout=timeout)
    if on_usage is not None:
        on_usage(completion.usage)
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
