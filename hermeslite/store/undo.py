"""The undo point of a session: the transcript as it was before its latest compaction.

A compaction writes its rewritten transcript as a new generation. Instead of
deleting the generation before it at once, the store keeps that one
generation as the session's undo point, with the number of messages the
compaction left: every message after those was added since. `/uncompress`
then writes the kept generation followed by the messages added since as the
next generation, so nothing the user or the model said after the compaction
is lost, and it works after a restart because it is all in the database.

Bounded: one undo point per session (the next compaction replaces it), and
only when that transcript's JSON is at most `UNDO_MAX_BYTES`. Past that, the
generation is dropped as before and the undo point records only its size, so
`/uncompress` can say why it cannot undo; the originals stay in the archive,
where `recall` finds them. An undo, a handoff seed or any other rewrite that
is not a compaction drops the undo point: there is no undo of an undo.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

UNDO_MAX_BYTES = 16 * 1024 * 1024


class NothingToUndo(LookupError):
    """`str()` says why, in one line for the user."""


@dataclass(frozen=True)
class UndoPoint:
    generation: int | None  # the transcript before the latest compaction; None when it was too large to keep
    base_count: int  # messages the compaction left; later ones were added since
    size_bytes: int  # that transcript's JSON size


@dataclass(frozen=True)
class Undone:
    """What an undo did: the transcript before the compaction came back, plus what was added since."""

    restored: int  # messages of the transcript before the compaction
    added_since: int  # messages added after the compaction, kept after them
    replaced: int  # messages of the compacted transcript that the undo replaced


def keep(conn: sqlite3.Connection, session_id: str, generation: int, base_count: int) -> int | None:
    """Make `generation` the session's undo point when it is small enough; returns the generation kept."""
    size = conn.execute(
        "SELECT COALESCE(SUM(LENGTH(CAST(json AS BLOB))), 0) FROM messages WHERE session_id = ? AND generation = ?",
        (session_id, generation),
    ).fetchone()[0]
    kept = generation if size <= UNDO_MAX_BYTES else None
    conn.execute(
        "INSERT OR REPLACE INTO undo_points (session_id, generation, base_count, size_bytes, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (session_id, kept, base_count, size, time.time()),
    )
    return kept


def point(conn: sqlite3.Connection, session_id: str) -> UndoPoint | None:
    row = conn.execute(
        "SELECT generation, base_count, size_bytes FROM undo_points WHERE session_id = ?", (session_id,)
    ).fetchone()
    return UndoPoint(*row) if row else None


def forget(conn: sqlite3.Connection, session_id: str) -> None:
    conn.execute("DELETE FROM undo_points WHERE session_id = ?", (session_id,))


def restore(conn: sqlite3.Connection, session_id: str, current: int) -> tuple[list[tuple[str, str]], Undone]:
    """(role, json) rows of the transcript to write back, and what they are; NothingToUndo when none.

    The rows are copied as stored, so the restored messages are exactly the
    ones the compaction replaced, private bookkeeping included.
    """
    found = point(conn, session_id)
    if found is None:
        raise NothingToUndo("nothing to undo: no compaction since this session started or since the last undo")
    if found.generation is None:
        raise NothingToUndo(
            f"cannot undo the last compaction: the transcript before it was {_size(found.size_bytes)}, "
            f"more than the {_size(UNDO_MAX_BYTES)} kept for undo; its originals stay in the archive "
            "(the recall tool finds them)"
        )
    before = _rows(conn, session_id, found.generation)
    compacted = _rows(conn, session_id, current)
    since = compacted[found.base_count :]
    return before + since, Undone(restored=len(before), added_since=len(since), replaced=len(compacted))


def _rows(conn: sqlite3.Connection, session_id: str, generation: int) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT role, json FROM messages WHERE session_id = ? AND generation = ? ORDER BY seq",
        (session_id, generation),
    ).fetchall()


def _size(size: int) -> str:
    return f"{size / 2**20:.1f} MB".replace(".0 MB", " MB") if size >= 2**20 else f"{max(1, round(size / 1024))} KB"
