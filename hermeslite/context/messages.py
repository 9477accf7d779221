"""Small helpers over OpenAI-format message dicts.

Every rewrite in `context/` works on copies: callers hand us their live
transcript and must get it back untouched, so helpers here never mutate.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

Message = dict[str, Any]

# Private bookkeeping keys start with "_" and never reach a provider.
SUMMARY_KEY = "_hl_summary"  # marks the message that carries the handoff summary
ANCHORS_KEY = "_hl_anchors"  # code-owned anchors, kept for rehydration after a restart
ARCHIVE_KEY = "_hl_ref"  # reference id of the archived original of a pruned message
EXIT_CODE_KEY = "_hl_exit_code"  # a command's exit code on the message holding its output (None: no command)
REFILL_KEY = "_hl_refill"  # on the checkpoint message: compactions refilled in a row (see refill.py)


IMAGE_TYPES = ("image_url", "image", "input_image")


def text_of(content: Any, image_marker: str | None = None) -> str:
    """Plain text of a message content (string or list of parts).

    Images are skipped, or stand as `image_marker` where a reader should know one was there.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                if part.get("type") == "text":
                    parts.append(str(part.get("text", "")))
                elif image_marker is not None and part.get("type") in IMAGE_TYPES:
                    parts.append(image_marker)
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return str(content)


def image_parts(content: Any) -> int:
    """How many image parts a content value holds."""
    if not isinstance(content, list):
        return 0
    return sum(1 for p in content if isinstance(p, dict) and p.get("type") in IMAGE_TYPES)


def tool_calls_of(msg: Message) -> list[dict[str, Any]]:
    calls = msg.get("tool_calls") or []
    return [c for c in calls if isinstance(c, dict)]


def call_id(call: dict[str, Any]) -> str:
    return str(call.get("id") or call.get("call_id") or "")


def call_name(call: dict[str, Any]) -> str:
    fn = call.get("function") or {}
    return str(fn.get("name") or call.get("name") or "")


def call_arguments(call: dict[str, Any]) -> str:
    fn = call.get("function") or {}
    args = fn.get("arguments", call.get("arguments", ""))
    if isinstance(args, str):
        return args
    try:
        return json.dumps(args, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(args)


def parsed_arguments(call: dict[str, Any]) -> dict[str, Any]:
    """Tool-call arguments as a dict; {} when they are not a JSON object."""
    raw = call.get("function", {}).get("arguments") if isinstance(call.get("function"), dict) else None
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(call_arguments(call) or "{}")
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def is_summary(msg: Message) -> bool:
    return bool(msg.get(SUMMARY_KEY))


def strip_private(messages: Iterable[Message]) -> list[Message]:
    """Copies without `_`-prefixed keys: what a provider is allowed to see."""
    return [{k: v for k, v in m.items() if not str(k).startswith("_")} for m in messages]


def reference_id(msg: Message) -> str:
    """Stable short id of a message's original content, used as the archive key.

    Derived from the content so the same original always maps to the same id,
    whichever pass archives it.
    """
    content = msg.get("content")
    if not isinstance(content, str):
        content = json.dumps(content, sort_keys=True, default=str)
    # One string hashed at once (the digest is the same as feeding the parts in turn): this runs
    # for every compacted message, so per-call overhead counts. SHA-1 is a content fingerprint
    # here, not security; OpenSSL's (hardware-assisted on most CPUs) is several times faster
    # than BLAKE2b, and a big compaction hashes megabytes of originals.
    data = f"{msg.get('role', '')}{msg.get('tool_call_id', '')}{content}"
    if msg.get("tool_calls"):
        data += "".join(call_id(call) + call_arguments(call) for call in tool_calls_of(msg))
    return "r" + hashlib.sha1(data.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()[:10]
