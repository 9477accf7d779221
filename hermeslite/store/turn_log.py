"""The turn log: each user turn of a session, and the file snapshots taken during it.

A turn is what the user sent: a message, or a `!command`. Its row keeps the
text (the /rewind picker shows it) and what the transcript held just before
it, as message references rather than copies: the ids the compaction engine
archives originals under (`_hl_ref` of a pruned message, else its content
id). A turn that follows the previous one in the same transcript lists only
the messages added since, with `base` naming that turn; after a compaction
the list starts over with the whole (now smaller) transcript. So the log
grows with the conversation, not with its square, and a transcript that was
compacted away is put back together from the archive.

A snapshot row names a commit of the project's shadow repository: the one
taken before the turn's first tool that can write (`before`) and one after
each such tool (`after`), with the paths it saw change since the session's
previous snapshot. Turns numbered from 1 per session; a rewind of the
conversation deletes the turns from its point on (their snapshots with them).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass

from .database import Database, RunSQL

BEFORE, AFTER = "before", "after"


@dataclass(frozen=True)
class TurnRecord:
    turn: int
    at: float
    text: str
    base: int | None  # the turn whose message list this one's extends; None: `refs` is the whole list
    refs: tuple[str, ...]
    undone: bool  # its file changes were taken back (/undo, or a rewind of the code)


@dataclass(frozen=True)
class SnapshotRecord:
    turn: int
    seq: int
    kind: str  # BEFORE | AFTER
    tool: str | None
    commit: str
    project: str  # the work tree it is a snapshot of
    paths: tuple[str, ...]  # changed since the session's previous snapshot
    at: float


def insert_turn(conn: sqlite3.Connection, session_id: str, text: str, base: int | None, refs: list[str]) -> int:
    """Log the next turn of the session; returns its number."""
    number = conn.execute(
        "SELECT COALESCE(MAX(turn), 0) + 1 FROM turns WHERE session_id = ?", (session_id,)
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO turns (session_id, turn, at, text, base, refs) VALUES (?, ?, ?, ?, ?, ?)",
        (session_id, number, time.time(), text, base, json.dumps(refs)),
    )
    return number


def select_turns(query: RunSQL, session_id: str) -> list[TurnRecord]:
    rows = query(
        "SELECT turn, at, text, base, refs, undone_at FROM turns WHERE session_id = ? ORDER BY turn", (session_id,)
    )
    return [
        TurnRecord(t, at, text, base, tuple(json.loads(refs)), undone is not None)
        for t, at, text, base, refs, undone in rows
    ]


def insert_snapshot(
    conn: sqlite3.Connection,
    session_id: str,
    turn: int,
    kind: str,
    tool: str | None,
    commit: str,
    project: str,
    paths: tuple[str, ...],
) -> None:
    seq = conn.execute(
        "SELECT COALESCE(MAX(seq), -1) + 1 FROM snapshots WHERE session_id = ? AND turn = ?", (session_id, turn)
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO snapshots (session_id, turn, seq, kind, tool, commit_id, project, paths, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (session_id, turn, seq, kind, tool, commit, project, json.dumps(list(paths)), time.time()),
    )


def select_snapshots(query: RunSQL, session_id: str) -> list[SnapshotRecord]:
    rows = query(
        "SELECT turn, seq, kind, tool, commit_id, project, paths, at FROM snapshots WHERE session_id = ?"
        " ORDER BY turn, seq",
        (session_id,),
    )
    return [
        SnapshotRecord(t, s, k, tool, c, p, tuple(json.loads(paths)), at) for t, s, k, tool, c, p, paths, at in rows
    ]


def mark_undone(conn: sqlite3.Connection, session_id: str, turns: list[int]) -> None:
    conn.executemany(
        "UPDATE turns SET undone_at = ? WHERE session_id = ? AND turn = ?",
        [(time.time(), session_id, turn) for turn in turns],
    )


def drop_from(conn: sqlite3.Connection, session_id: str, turn: int) -> None:
    """Forget turn `turn` and every later one (a rewind of the conversation to before it)."""
    conn.execute("DELETE FROM turns WHERE session_id = ? AND turn >= ?", (session_id, turn))


def message_list(turns: list[TurnRecord], turn: int) -> list[str]:
    """The references of the messages the transcript held just before `turn` (system prompt excluded);
    LookupError when the log does not reach back to a whole list."""
    by_number = {t.turn: t for t in turns}
    parts: list[tuple[str, ...]] = []
    number: int | None = turn
    while number is not None:
        record = by_number.get(number)
        if record is None:
            raise LookupError(f"turn {number} is not in the log")
        parts.append(record.refs)
        number = record.base
    return [ref for part in reversed(parts) for ref in part]


class TurnLog:
    """The turn log of every session in one database (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def begin(self, session_id: str, text: str, base: int | None, refs: list[str]) -> int:
        with self._db.transaction(session_id) as conn:
            return insert_turn(conn, session_id, text, base, refs)

    def turns(self, session_id: str) -> list[TurnRecord]:
        return select_turns(self._db.query, session_id)

    def snapshot(
        self,
        session_id: str,
        turn: int,
        kind: str,
        tool: str | None,
        commit: str,
        project: str,
        paths: tuple[str, ...],
    ) -> None:
        with self._db.transaction(session_id) as conn:
            insert_snapshot(conn, session_id, turn, kind, tool, commit, project, paths)

    def snapshots(self, session_id: str) -> list[SnapshotRecord]:
        return select_snapshots(self._db.query, session_id)

    def mark_undone(self, session_id: str, turns: list[int]) -> None:
        with self._db.transaction(session_id) as conn:
            mark_undone(conn, session_id, turns)
