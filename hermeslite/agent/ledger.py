"""Incremental token accounting for the preflight check.

Estimating 10,000 messages on every turn would make the loop itself slow;
counts are cached per message and kept in step with the transcript, so a turn
adds only the cost of its new messages.
"""

from __future__ import annotations

import json
from typing import Any

from hermeslite.context.tokens import estimate_tokens, message_tokens


class TokenLedger:
    """Per-message token counts of a transcript, updated as it changes."""

    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        self._counts: list[int] = []
        self.total = 0
        self.reset(messages or [])

    def reset(self, messages: list[dict[str, Any]]) -> None:
        self._counts = [message_tokens(m) for m in messages]
        self.total = sum(self._counts)

    def append(self, message: dict[str, Any]) -> None:
        count = message_tokens(message)
        self._counts.append(count)
        self.total += count

    def replace(self, index: int, message: dict[str, Any]) -> None:
        count = message_tokens(message)
        self.total += count - self._counts[index]
        self._counts[index] = count

    def __len__(self) -> int:
        return len(self._counts)


def schema_tokens(schemas: list[dict[str, Any]]) -> int:
    """Tool schemas travel with every request and count against the window."""
    return estimate_tokens(json.dumps(schemas)) if schemas else 0
