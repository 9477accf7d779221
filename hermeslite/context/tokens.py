"""Token estimates that are cheap enough to run on every message of every turn.

The compressor works on rough counts (about 4 characters a token) because it
must handle a 5,000-message transcript in milliseconds; an exact tokenizer
would cost more than the whole rewrite. Images are charged a flat amount:
their base64 length says nothing about what a provider bills for them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .messages import IMAGE_TYPES, Message, call_arguments, call_name, tool_calls_of

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4
TOOL_CALL_OVERHEAD_TOKENS = 8
IMAGE_TOKENS = 1600


def _chars_tokens(n_chars: int) -> int:
    return (n_chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def content_tokens(content: Any) -> int:
    """Tokens of a content value: text by length, each image part a flat 1,600."""
    if content is None:
        return 0
    if isinstance(content, str):
        return _chars_tokens(len(content))
    if isinstance(content, list):
        total = 0
        for part in content:
            if isinstance(part, dict):
                kind = part.get("type")
                if kind in IMAGE_TYPES:
                    total += IMAGE_TOKENS
                elif kind == "text":
                    total += _chars_tokens(len(str(part.get("text", ""))))
                else:
                    total += _chars_tokens(len(str(part)))
            else:
                total += _chars_tokens(len(str(part)))
        return total
    return _chars_tokens(len(str(content)))


def message_tokens(msg: Message) -> int:
    """Rough tokens of one message, tool-call names and arguments included."""
    total = MESSAGE_OVERHEAD_TOKENS + content_tokens(msg.get("content"))
    for call in tool_calls_of(msg):
        total += TOOL_CALL_OVERHEAD_TOKENS + _chars_tokens(len(call_name(call)) + len(call_arguments(call)))
    if msg.get("name"):
        total += 1
    return total


def estimate_tokens(value: str | Message | Iterable[Message] | None) -> int:
    """Rough token count of a string, one message, or a list of messages."""
    if value is None:
        return 0
    if isinstance(value, str):
        return _chars_tokens(len(value))
    if isinstance(value, dict):
        return message_tokens(value)
    return sum(message_tokens(m) for m in value)
