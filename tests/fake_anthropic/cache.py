"""The prompt cache, modelled on Anthropic's documented behaviour.

- A breakpoint writes the prefix up to its block when that prefix is at least
  `min_tokens` long (1,024 for Sonnet and Opus).
- A later request reads from the cache when, at one of its breakpoints or up
  to 20 blocks before it, the prefix matches a live entry byte for byte.
- An entry lives for its TTL ("5m" by default, or "1h"); every read renews it.
- Usage splits the prompt into `cache_read_input_tokens` (the longest prefix
  found), `cache_creation_input_tokens` (from there to the last breakpoint
  written) and `input_tokens` (the rest, after the last breakpoint).

The clock is injectable so tests and benchmarks can let time pass.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .blocks import Prefix

LOOKBACK_BLOCKS = 20
MIN_CACHEABLE_TOKENS = 1_024
TTL_SECONDS = {"5m": 300.0, "1h": 3_600.0}


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    ephemeral_5m_input_tokens: int = 0
    ephemeral_1h_input_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


def ttl_of(marker: dict) -> str:
    return str(marker.get("ttl") or "5m")


@dataclass
class PromptCache:
    clock: Callable[[], float] = time.monotonic
    min_tokens: int = MIN_CACHEABLE_TOKENS
    _entries: dict[str, float] = field(default_factory=dict)  # prefix hash -> expiry time
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def use(self, prefix: Prefix) -> CacheUsage:
        """Read what the request's breakpoints find, write what they mark, and say how the prompt was billed."""
        with self._lock:
            now = self.clock()
            marks = [i for i, block in enumerate(prefix.blocks) if block.cache_control]
            read_at = self._read(prefix, marks, now)
            written: list[tuple[int, str]] = []
            for i in marks:
                if i > read_at and prefix.tokens_through(i) >= self.min_tokens:
                    ttl = ttl_of(prefix.blocks[i].cache_control or {})
                    self._entries[prefix.hashes[i]] = now + TTL_SECONDS[ttl]
                    written.append((i, ttl))
            return _bill(prefix, read_at, written)

    def _read(self, prefix: Prefix, marks: list[int], now: float) -> int:
        """The last position whose prefix is cached, looking back from every breakpoint; -1 for none."""
        best = -1
        for mark in marks:
            for i in range(mark, max(-1, mark - LOOKBACK_BLOCKS), -1):
                expiry = self._entries.get(prefix.hashes[i])
                if expiry is not None and expiry > now:
                    best = max(best, i)
                    break
        if best >= 0:
            marker = next((prefix.blocks[m].cache_control for m in marks if m >= best), None) or {}
            self._entries[prefix.hashes[best]] = now + TTL_SECONDS[ttl_of(marker)]
        return best

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def _bill(prefix: Prefix, read_at: int, written: list[tuple[int, str]]) -> CacheUsage:
    read = prefix.tokens_through(read_at)
    by_ttl = {"5m": 0, "1h": 0}
    start = read
    for position, ttl in written:
        end = prefix.tokens_through(position)
        by_ttl[ttl] += end - start
        start = end
    created = start - read
    return CacheUsage(
        input_tokens=prefix.total - read - created,
        cache_read_input_tokens=read,
        cache_creation_input_tokens=created,
        ephemeral_5m_input_tokens=by_ttl["5m"],
        ephemeral_1h_input_tokens=by_ttl["1h"],
    )
