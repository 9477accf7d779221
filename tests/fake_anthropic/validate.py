"""The request checks the real Messages API makes, with its error wording.

Each check returns the first problem as the message of a 400
`invalid_request_error`, or None. They are the rules a transcript rewrite
most easily breaks: roles that do not alternate, a `tool_use` without its
`tool_result` in the very next user message (or a result without its call),
empty text blocks, more than four `cache_control` breakpoints, and a 1-hour
cache entry placed after a 5-minute one.
"""

from __future__ import annotations

from typing import Any

from .blocks import content_blocks

MAX_CACHE_BREAKPOINTS = 4


def problem(body: dict[str, Any]) -> str | None:
    """What the API would reject this request for, or None."""
    for check in (_shape, _roles, _text_blocks, _tool_pairs, _breakpoints):
        found = check(body)
        if found:
            return found
    return None


def _shape(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, tool in enumerate(body.get("tools") or []):
        if not tool.get("name") or "input_schema" not in tool:
            return f"tools.{i}: a custom tool needs name and input_schema"
    return None


def _roles(body: dict[str, Any]) -> str | None:
    messages = body["messages"]
    if messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    for i, message in enumerate(messages):
        if message.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        if i and message["role"] == messages[i - 1]["role"]:
            return f'messages: roles must alternate between "user" and "assistant" (messages.{i})'
        if not content_blocks(message.get("content")):
            return f"messages.{i}: all messages must have non-empty content"
    return None


def _text_blocks(body: dict[str, Any]) -> str | None:
    system = body.get("system")
    for i, block in enumerate(content_blocks(system) if system else []):
        if block.get("type") == "text" and not str(block.get("text") or "").strip():
            return f"system.{i}: text content blocks must contain non-whitespace text"
    for i, message in enumerate(body["messages"]):
        last = i == len(body["messages"]) - 1 and message["role"] == "assistant"
        for j, block in enumerate(content_blocks(message.get("content"))):
            if block.get("type") == "text" and not str(block.get("text") or "").strip() and not last:
                return f"messages.{i}.content.{j}: text content blocks must contain non-whitespace text"
    return None


def _tool_pairs(body: dict[str, Any]) -> str | None:
    messages = body["messages"]
    seen: set[Any] = set()
    for i, message in enumerate(messages):
        blocks = content_blocks(message.get("content"))
        if message["role"] == "assistant":
            for j, block in enumerate(blocks):
                if block.get("type") == "tool_use":
                    if block.get("id") in seen:
                        return f"messages.{i}.content.{j}: `tool_use` ids must be unique"
                    seen.add(block.get("id"))
            uses = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
            if not uses:
                continue
            following = content_blocks(messages[i + 1].get("content")) if i + 1 < len(messages) else []
            answered = {b.get("tool_use_id") for b in following if b.get("type") == "tool_result"}
            missing = [u for u in uses if u not in answered]
            if missing:
                return (
                    f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks immediately "
                    f"after: {', '.join(map(str, missing))}. Each `tool_use` block must have a corresponding "
                    "`tool_result` block in the next message."
                )
        else:
            results = [b for b in blocks if b.get("type") == "tool_result"]
            if not results:
                continue
            if any(b.get("type") != "tool_result" for b in blocks[: len(results)]):
                return f"messages.{i}: `tool_result` blocks must come before any other content"
            previous = content_blocks(messages[i - 1].get("content")) if i else []
            calls = {b.get("id") for b in previous if b.get("type") == "tool_use"}
            for block in results:
                if block.get("tool_use_id") not in calls:
                    return (
                        f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message."
                    )
    return None


def _breakpoints(body: dict[str, Any]) -> str | None:
    markers = [t.get("cache_control") for t in body.get("tools") or []]
    system = body.get("system")
    markers += [b.get("cache_control") for b in (content_blocks(system) if system else [])]
    for message in body["messages"]:
        markers += [b.get("cache_control") for b in content_blocks(message.get("content"))]
    markers = [m for m in markers if m is not None]
    if len(markers) > MAX_CACHE_BREAKPOINTS:
        return f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {len(markers)}."
    seen_short = False
    for marker in markers:
        if marker.get("type") != "ephemeral":
            return "cache_control.type: Input should be 'ephemeral'"
        ttl = marker.get("ttl", "5m")
        if ttl not in ("5m", "1h"):
            return f"cache_control.ttl: Input should be '5m' or '1h', got {ttl!r}"
        if ttl == "1h" and seen_short:
            return "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block"
        seen_short = seen_short or ttl == "5m"
    return None
