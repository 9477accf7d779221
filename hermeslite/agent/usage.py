"""Counting what the session's model requests consume, as they happen.

Every request the agent makes (a turn's model call, a summary, a memory
flush) is recorded here: one row in the session store (written by the
agent's SessionSaver, so a full disk costs the row's save, not the turn), so
a resumed session still knows its cost, and a running total, so `/context`, the compaction card
and the end-of-run line read it without a query.
"""

from __future__ import annotations

from hermeslite.llm.types import Usage
from hermeslite.store.sessions import SessionStore
from hermeslite.store.usage import UsageRecord, UsageTotals

from .saving import SessionSaver


class UsageMeter:
    def __init__(self, store: SessionStore, session_id: str, saver: SessionSaver) -> None:
        self._saver = saver
        self._totals = UsageTotals.of(store.usage(session_id))

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
            estimated_tokens=estimated,
        )
        self._saver.usage(record)
        self._totals = self._totals + UsageTotals.of([record])

    @property
    def totals(self) -> UsageTotals:
        """The whole session so far."""
        return self._totals
