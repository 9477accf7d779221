"""Deterministic pruning: the cheap pass that runs before any LLM call.

Tool outputs are most of a long agent transcript. Replacing old, large ones
with a one-line description (and an archive id to get them back), dropping
exact repeats, stripping old image payloads and shortening huge tool-call
arguments often brings a session under the threshold with no summary at all,
and keeps the conversation's structure exactly as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .exit_codes import exit_code_of
from .messages import (
    ARCHIVE_KEY,
    IMAGE_TYPES,
    Message,
    call_arguments,
    call_id,
    call_name,
    image_parts,
    parsed_arguments,
    reference_id,
    text_of,
    tool_calls_of,
)
from .tokens import message_tokens
from .tool_roles import DEFAULT_TOOL_ROLES, ToolRoles
from .tool_summaries import summarize_tool_result

MIN_PRUNE_CHARS = 200  # shorter outputs are cheaper than their placeholder
MIN_ARGUMENT_CHARS = 500  # tool-call arguments below this are left alone
MAX_ARGUMENT_STRING = 200  # string values in big arguments are cut to this
ALWAYS_KEEP_LAST = 3  # the newest messages are never pruned
RECALL_MARK = re.compile(r"recall id (r[0-9a-f]{10})")


def recall_note(ref: str) -> str:
    return f"[pruned; recall id {ref}]"


@dataclass
class PruneResult:
    messages: list[Message]
    archived: dict[str, Message] = field(default_factory=dict)
    saved_tokens: int = 0
    pruned: int = 0


def _is_placeholder(msg: Message) -> bool:
    return ARCHIVE_KEY in msg or bool(RECALL_MARK.search(text_of(msg.get("content"))[-80:]))


def protected_start(messages: list[Message], tokens: list[int], protect_tokens: int) -> int:
    """First index whose tool output falls inside the protected recent budget.

    Walks back from the newest message adding up tool-result tokens; everything
    before the point where the budget runs out counts as old.
    """
    spent = 0
    start = max(0, len(messages) - ALWAYS_KEEP_LAST)
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "tool":
            spent += tokens[i]
            if spent > protect_tokens:
                return min(i + 1, start)
    return 0


def _call_index(messages: list[Message]) -> dict[str, dict[str, Any]]:
    index: dict[str, dict[str, Any]] = {}
    for msg in messages:
        if msg.get("role") == "assistant":
            for call in tool_calls_of(msg):
                index[call_id(call)] = call
    return index


def _replace(msg: Message, content: Any, ref: str) -> Message:
    new = dict(msg)
    new["content"] = content
    new[ARCHIVE_KEY] = ref
    return new


def _truncate_json(value: Any, ref: str) -> Any:
    if isinstance(value, str) and len(value) > MAX_ARGUMENT_STRING:
        cut = len(value) - MAX_ARGUMENT_STRING
        return value[:MAX_ARGUMENT_STRING] + f"…[truncated {cut} chars; recall id {ref}]"
    if isinstance(value, dict):
        return {k: _truncate_json(v, ref) for k, v in value.items()}
    if isinstance(value, list):
        return [_truncate_json(v, ref) for v in value]
    return value


def shrink_arguments(msg: Message) -> Message | None:
    """A copy with big JSON string arguments cut down, or None when nothing shrank.

    Arguments that are not valid JSON are left alone: cutting them blindly
    would hand the provider a malformed call and a rejected request. The
    archive id is worked out only for a message that has big arguments.
    """
    changed = False
    calls = []
    ref = ""
    for call in tool_calls_of(msg):
        raw = call_arguments(call)
        if len(raw) > MIN_ARGUMENT_CHARS:
            ref = ref or reference_id(msg)
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
            if parsed is not None:
                shrunk = json.dumps(_truncate_json(parsed, ref), ensure_ascii=False)
                if len(shrunk) < len(raw):
                    call = {**call, "function": {**(call.get("function") or {}), "arguments": shrunk}}
                    changed = True
        calls.append(call)
    if not changed:
        return None
    new = dict(msg)
    new["tool_calls"] = calls
    new[ARCHIVE_KEY] = ref
    return new


def _strip_images(msg: Message, ref: str) -> Message:
    parts = []
    for part in msg["content"]:
        if isinstance(part, dict) and part.get("type") in IMAGE_TYPES:
            parts.append({"type": "text", "text": f"[image removed to save context; recall id {ref}]"})
        else:
            parts.append(part)
    return _replace(msg, parts, ref)


def _newest_image_turn(messages: list[Message]) -> int:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user" and image_parts(messages[i].get("content")):
            return i
    return -1


def prune(
    messages: list[Message],
    *,
    protect_tokens: int,
    minimum_tokens: int,
    never_prune: set[str] | frozenset[str] = frozenset(),
    tokens: list[int] | None = None,
    force: bool = False,
    roles: ToolRoles = DEFAULT_TOOL_ROLES,
) -> PruneResult:
    """Prune old tool output; give up (returning the input) if it saves too little.

    `force` applies the prune even below `minimum_tokens`: the manual
    /compress asked for every saving there is. `roles` says what each tool does, for the
    one-line descriptions.
    """
    tokens = tokens if tokens is not None else [message_tokens(m) for m in messages]
    old_end = protected_start(messages, tokens, protect_tokens)
    calls = _call_index(messages)
    keep_image_at = _newest_image_turn(messages)
    out = list(messages)
    archived: dict[str, Message] = {}
    seen_outputs: set[str] = set()

    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        role = msg.get("role")
        if role == "tool":
            new = _prune_result(msg, i < old_end, calls, never_prune, seen_outputs, roles)
            if new is None and i < old_end and image_parts(msg.get("content")):  # an MCP tool's picture
                new = _strip_images(msg, reference_id(msg))
        elif i < old_end and role == "assistant" and tool_calls_of(msg):
            new = shrink_arguments(msg)
        elif role == "user" and i < keep_image_at and image_parts(msg.get("content")):
            new = _strip_images(msg, reference_id(msg))
        else:
            new = None
        if new is not None:
            archived[new[ARCHIVE_KEY]] = msg
            out[i] = new

    saved = sum(tokens[i] - message_tokens(out[i]) for i in range(len(out)) if out[i] is not messages[i])
    if not archived or (saved < minimum_tokens and not force):
        return PruneResult(messages=list(messages))
    return PruneResult(messages=out, archived=archived, saved_tokens=saved, pruned=len(archived))


def _prune_result(
    msg: Message,
    is_old: bool,
    calls: dict[str, dict[str, Any]],
    never_prune: set[str] | frozenset[str],
    seen: set[str],
    roles: ToolRoles,
) -> Message | None:
    call = calls.get(str(msg.get("tool_call_id") or ""), {})
    name = call_name(call) or str(msg.get("name") or "")
    content = msg.get("content")
    if name in never_prune or not isinstance(content, str) or _is_placeholder(msg):
        return None
    if len(content) < MIN_PRUNE_CHARS:
        return None
    duplicate = content in seen
    seen.add(content)
    if not (duplicate or is_old):
        return None
    ref = reference_id(msg)
    line = summarize_tool_result(
        name, parsed_arguments(call) if call else {}, content, exit_code=exit_code_of(msg), roles=roles
    )
    if duplicate:
        line += "; same output as a later call"
    return _replace(msg, f"{line} {recall_note(ref)}", ref)
