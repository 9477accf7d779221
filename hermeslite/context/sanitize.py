"""Keep every tool call paired with exactly one result, as providers demand.

A provider rejects the whole request when an assistant `tool_calls` entry has
no answer, or a `tool` message answers nothing. Any rewrite that drops or moves
messages can break a pair, so the compressor runs this after every rewrite.
"""

from __future__ import annotations

from typing import Any

from .messages import Message, call_id, tool_calls_of

REMOVED_CALL_TEXT = "(tool call removed: its result was not kept)"


def sanitize_tool_pairs(messages: list[Message]) -> list[Message]:
    """Return a copy where calls and results pair up one to one.

    A result counts only inside the run of `tool` messages that directly follows
    the assistant message that made the call; anything else is an orphan and is
    dropped. Calls left without a result are removed from their message; a
    message left with neither text nor calls gets a short note so the
    user/assistant alternation stays intact.
    """
    out: list[Message] = []
    i, n = 0, len(messages)
    while i < n:
        msg = messages[i]
        if msg.get("role") == "tool":
            i += 1  # a result outside any call's run answers nothing
            continue
        calls = tool_calls_of(msg) if msg.get("role") == "assistant" else []
        if not calls:
            out.append(msg)
            i += 1
            continue
        wanted = {call_id(c) for c in calls if call_id(c)}
        results: list[Message] = []
        answered: set[str] = set()
        j = i + 1
        while j < n and messages[j].get("role") == "tool":
            rid = str(messages[j].get("tool_call_id") or "")
            if rid in wanted and rid not in answered:
                answered.add(rid)
                results.append(messages[j])
            j += 1
        kept_calls = _first_per_id([c for c in calls if call_id(c) in answered])
        if len(kept_calls) == len(calls):
            out.append(msg)
        else:
            out.append(_without_calls(msg, kept_calls))
        out.extend(results)
        i = j
    return out


def _first_per_id(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls with a repeated id dropped: one result can answer only one call."""
    seen: set[str] = set()
    kept = []
    for call in calls:
        if call_id(call) not in seen:
            seen.add(call_id(call))
            kept.append(call)
    return kept


def _without_calls(msg: Message, kept_calls: list[dict[str, Any]]) -> Message:
    fixed = dict(msg)
    if kept_calls:
        fixed["tool_calls"] = kept_calls
    else:
        fixed.pop("tool_calls", None)
        content = fixed.get("content")
        if content is None or (isinstance(content, str) and not content.strip()) or content == []:
            fixed["content"] = REMOVED_CALL_TEXT
    return fixed
