"""What each request consumed, kept per session so cost and cache hits survive a restart.

One row per model request: the turn's own calls, summary requests and memory
flushes. Input is split the way providers bill it: `prompt_tokens` counts all
of it, of which `cache_read_tokens` came from the prompt cache (a tenth of the
price on Anthropic) and `cache_write_tokens` were written to it (a premium).
`cost` is litellm's price for the request, None when it has no price.
`estimated_tokens` is our own estimate of a turn's request, kept beside the
provider's count so a resumed session starts calibrated.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

KINDS = ("turn", "summary", "flush")


LOCAL_PREFIX = "local/"  # the embedded model's name (llm/local.py), which the store must not import


def is_local_model(model: str | None) -> bool:
    return bool(model) and str(model).startswith(LOCAL_PREFIX)


@dataclass(frozen=True)
class UsageRecord:
    kind: str  # turn | summary | flush
    model: str | None
    prompt_tokens: int = 0  # all input, cache reads and writes included
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # USD; None when the model has no known price
    at: float = field(default_factory=time.time)
    estimated_tokens: int | None = None  # our estimate of the same request (turns only)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"usage kind must be one of {', '.join(KINDS)}, got {self.kind!r}")


@dataclass(frozen=True)
class UsageTotals:
    """Usage summed over some requests: a session, or the requests one compaction made."""

    requests: int = 0
    prompt_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # the priced requests only
    unpriced: int = 0  # requests whose model has no price
    local: int = 0  # requests to the embedded model, which runs on this machine and costs nothing

    @classmethod
    def of(cls, records: Iterable[UsageRecord]) -> UsageTotals:
        total = cls()
        for r in records:
            total = total + cls(
                1,
                r.prompt_tokens,
                r.cache_read_tokens,
                r.cache_write_tokens,
                r.completion_tokens,
                r.cost or 0.0,
                int(r.cost is None),
                int(is_local_model(r.model)),
            )
        return total

    def __add__(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            self.requests + other.requests,
            self.prompt_tokens + other.prompt_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost + other.cost,
            self.unpriced + other.unpriced,
            self.local + other.local,
        )

    def __sub__(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            self.requests - other.requests,
            self.prompt_tokens - other.prompt_tokens,
            self.cache_read_tokens - other.cache_read_tokens,
            self.cache_write_tokens - other.cache_write_tokens,
            self.completion_tokens - other.completion_tokens,
            self.cost - other.cost,
            self.unpriced - other.unpriced,
            self.local - other.local,
        )

    @property
    def uncached_tokens(self) -> int:
        return max(0, self.prompt_tokens - self.cache_read_tokens - self.cache_write_tokens)

    @property
    def cache_hit_rate(self) -> float:
        """Share of all input read from the cache (0.0 with no input)."""
        return self.cache_read_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def priced(self) -> bool:
        """Every request had a price, so `cost` is the whole cost."""
        return self.unpriced == 0


def insert(conn: sqlite3.Connection, session_id: str, r: UsageRecord) -> None:
    conn.execute(
        """INSERT INTO usage (session_id, at, kind, model, prompt_tokens, cache_read_tokens,
               cache_write_tokens, completion_tokens, cost, estimated_tokens)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            session_id,
            r.at,
            r.kind,
            r.model,
            r.prompt_tokens,
            r.cache_read_tokens,
            r.cache_write_tokens,
            r.completion_tokens,
            r.cost,
            r.estimated_tokens,
        ),
    )


def select(conn: sqlite3.Connection, session_id: str) -> list[UsageRecord]:
    """Oldest first."""
    rows = conn.execute(
        """SELECT kind, model, prompt_tokens, cache_read_tokens, cache_write_tokens, completion_tokens, cost, at,
                  estimated_tokens
           FROM usage WHERE session_id = ? ORDER BY id""",
        (session_id,),
    ).fetchall()
    return [UsageRecord(*row) for row in rows]
