"""Counting what the session's model requests consume, as they happen.

Every request the agent makes (a turn's model call, a summary, a memory
flush) is recorded here: one row in the session store (written by the
agent's SessionSaver, so a full disk costs the row's save, not the turn), so
a resumed session still knows its cost, and a running total, so `/context`, the compaction card
and the end-of-run line read it without a query.
"""

from __future__ import annotations

import time
from typing import Protocol

from hermeslite.llm.types import Usage
from hermeslite.store.sessions import SessionStore
from hermeslite.store.usage import UsageRecord, UsageTotals

from .saving import SessionSaver


class Clock(Protocol):
    """Wall-clock seconds (`time.time`): usage rows are stamped with it, and a resumed session compares
    its own rows' stamps with it (idle compaction: agent/idle.py)."""

    def __call__(self) -> float: ...


class UsageMeter:
    def __init__(self, store: SessionStore, session_id: str, saver: SessionSaver, clock: Clock = time.time) -> None:
        self._saver = saver
        self.clock = clock  # stamps each row; idle compaction reads the gap since the last one on it
        records = store.usage(session_id)
        self._totals = UsageTotals.of(records)
        # The last request's time: a resumed session's comes from its saved rows, so a session left
        # overnight knows its prompt cache went cold while it sat.
        self._last_at: float | None = records[-1].at if records else None

    def record(self, kind: str, model: str | None, usage: Usage, *, estimated: int | None = None) -> None:
        """One finished request of `kind` (turn | summary | flush), with our `estimated` size of it
        when known; one that reported no usage is skipped."""
        if not usage.prompt_tokens and not usage.completion_tokens:
            return
        record = UsageRecord(
            kind,
            model,
            usage.prompt_tokens or 0,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            usage.completion_tokens or 0,
            usage.cost,
            at=self.clock(),
            estimated_tokens=estimated,
        )
        self._last_at = record.at
        self._saver.usage(record)
        self._totals = self._totals + UsageTotals.of([record])

    def idle_seconds(self) -> float | None:
        """Seconds since the session's last model request (of any kind) finished; None before one."""
        return None if self._last_at is None else max(0.0, self.clock() - self._last_at)

    @property
    def totals(self) -> UsageTotals:
        """The whole session so far."""
        return self._totals
