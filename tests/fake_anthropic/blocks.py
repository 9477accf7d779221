"""A Messages API request as the flat sequence of blocks the prompt cache sees.

Anthropic caches a prompt as a prefix in a fixed order: tool definitions,
then the system blocks, then each message's content blocks. A breakpoint
(`cache_control` on a block) caches everything up to and including that
block. So the fake server flattens a request into that sequence and gives
every position a running hash and a running token count.

Tokens are counted deterministically (characters of the block's canonical
JSON / 4, rounded up) so tests and benchmarks can reason about exact numbers.
The cache marker itself is not part of a block's identity: moving a
breakpoint does not change the prefix it marks.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Block:
    """One cacheable unit: a tool, a system block, or a message content block."""

    where: str  # "tools[2]", "system[0]", "messages[4].content[1]"
    tokens: int
    cache_control: dict[str, Any] | None


@dataclass(frozen=True)
class Prefix:
    """The blocks of a request with, per position, the hash and tokens of everything up to it."""

    blocks: list[Block]
    hashes: list[str]
    tokens: list[int]

    @property
    def total(self) -> int:
        return self.tokens[-1] if self.tokens else 0

    def tokens_through(self, position: int) -> int:
        """Tokens of blocks 0..position (0 for position -1: nothing)."""
        return self.tokens[position] if position >= 0 else 0


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def count_tokens(value: Any) -> int:
    return math.ceil(len(canonical(value)) / CHARS_PER_TOKEN)


def without_marker(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def content_blocks(content: Any) -> list[Any]:
    """A message's content as a list of blocks (a bare string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def flatten(body: dict[str, Any]) -> Prefix:
    """The request's cacheable blocks in cache order, with running hashes and token counts.

    The model is hashed in first: a cache entry belongs to one model.
    """
    raw: list[tuple[str, str, Any]] = []  # (where, identity, block)
    for i, tool in enumerate(body.get("tools") or []):
        raw.append((f"tools[{i}]", "tool", tool))
    system = body.get("system")
    for i, block in enumerate(content_blocks(system) if system else []):
        raw.append((f"system[{i}]", "system", block))
    for m, message in enumerate(body.get("messages") or []):
        for c, block in enumerate(content_blocks(message.get("content"))):
            raw.append((f"messages[{m}].content[{c}]", f"{message.get('role')}#{m}", block))
    running = hashlib.sha256(canonical(body.get("model")).encode())
    blocks, hashes, tokens, total = [], [], [], 0
    for where, identity, block in raw:
        plain = without_marker(block)
        running.update(f"{identity}|{canonical(plain)}\n".encode())
        total += count_tokens(plain)
        marker = block.get("cache_control") if isinstance(block, dict) else None
        blocks.append(Block(where, count_tokens(plain), marker))
        hashes.append(running.hexdigest())
        tokens.append(total)
    return Prefix(blocks, hashes, tokens)
