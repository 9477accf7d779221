"""Tool calls under distinct ids, however a server numbered them.

A server may give several calls of one reply the same id. Kept that way,
each result would answer every call of that id, the sanitizer would drop all
but the first, and the next request would repeat the id, which providers
reject (Anthropic: "tool_use ids must be unique"). Replies are repaired on
receipt (llm/completion_assembly.py) and saved transcripts when they are
loaded (store/transcript.py), with one rule: the first call keeps the id,
the next get `id_2`, `id_3`, ..., and the k-th result for an id answers the
k-th call that had it, as the tool runner answered them in order.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .messages import Message


def unique_ids(tool_calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls with every id distinct; a renamed call never takes the id of a later one."""
    given = {call.get("id") for call in tool_calls}
    used: set[str] = set()
    repaired = []
    for call in tool_calls:
        original = str(call.get("id") or "")
        new_id, n = original, 1
        while new_id in used or (new_id != original and new_id in given):
            n += 1
            new_id = f"{original}_{n}"
        used.add(new_id)
        repaired.append(call if new_id == original else {**call, "id": new_id})
    return repaired


def unique_call_ids(messages: list[Message]) -> list[Message]:
    """`messages` with the calls of each assistant message under distinct ids and their results renamed to match."""
    out: list[Message] = []
    renamed: dict[str, deque[str]] = {}  # for the run of results after one assistant message
    for message in messages:
        role = message.get("role")
        if role == "tool":
            queue = renamed.get(str(message.get("tool_call_id") or ""))
            out.append({**message, "tool_call_id": queue.popleft()} if queue else message)
            continue
        renamed = {}
        calls = message.get("tool_calls") if role == "assistant" else None
        if calls:
            fixed = unique_ids(calls)
            for old, new in zip(calls, fixed, strict=True):
                renamed.setdefault(str(old.get("id") or ""), deque()).append(new["id"])
            message = message if fixed == calls else {**message, "tool_calls": fixed}
        out.append(message)
    return out
