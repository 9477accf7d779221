"""Compaction records: what each compaction of a session did, kept for /context and for debugging."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field

from hermeslite.context.result import CompressionResult

# idle: the prompt cache had gone cold (agent/idle.py); agent: the model asked (the `context` tool)
TRIGGERS = ("preflight", "reactive", "manual", "idle", "agent")

SELECT_RECORDS = """
    SELECT trigger, tokens_before, tokens_after, messages_before, messages_after, focus,
           fallback, aborted, summary, error, at
    FROM compactions WHERE session_id = ? ORDER BY id
"""


@dataclass
class CompactionRecord:
    trigger: str  # preflight | reactive | manual | idle | agent
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    focus: str | None = None
    fallback: bool = False
    aborted: bool = False
    summary: str | None = None
    error: str | None = None
    at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.trigger not in TRIGGERS:
            raise ValueError(f"compaction trigger must be one of {', '.join(TRIGGERS)}, got {self.trigger!r}")

    @classmethod
    def from_result(cls, result: CompressionResult, trigger: str) -> CompactionRecord:
        return cls(
            trigger=trigger,
            tokens_before=result.tokens_before,
            tokens_after=result.tokens_after,
            messages_before=result.messages_before,
            messages_after=result.messages_after,
            focus=result.focus_topic,
            fallback=result.fallback_used,
            aborted=result.aborted,
            summary=result.summary,
            error=result.error,
        )

    @classmethod
    def from_row(cls, row: tuple) -> CompactionRecord:
        """A record from a row of SELECT_RECORDS, whose columns are the fields in order."""
        record = cls(*row)
        record.fallback, record.aborted = bool(record.fallback), bool(record.aborted)  # SQLite keeps 0 and 1
        return record


def insert_record(conn: sqlite3.Connection, session_id: str, r: CompactionRecord) -> int:
    """Store `r` for `session_id` inside the caller's transaction; returns its row id."""
    cursor = conn.execute(
        """INSERT INTO compactions (session_id, at, trigger, focus, tokens_before, tokens_after,
               messages_before, messages_after, fallback, aborted, summary, error)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            session_id,
            r.at,
            r.trigger,
            r.focus,
            r.tokens_before,
            r.tokens_after,
            r.messages_before,
            r.messages_after,
            int(r.fallback),
            int(r.aborted),
            r.summary,
            r.error,
        ),
    )
    return int(cursor.lastrowid or 0)
