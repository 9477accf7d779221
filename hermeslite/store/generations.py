"""Writing a transcript as a new generation, and dropping the generations it replaces.

A rewrite (a compaction, an undo, a handoff seed) writes the whole transcript
as the next generation in the caller's transaction and points the session at
it. The generations before it are dropped, with two exceptions: a compaction
keeps the one it replaced as the session's undo point (see undo.py), and rows
that could not be read stay, since no message in the archive stands for them.
"""

from __future__ import annotations

import sqlite3
import time

from . import undo
from .transcript import BadRow, read_row

Row = tuple[str, str]  # (role, message JSON)


def write(
    conn: sqlite3.Connection, session_id: str, current: int, rows: list[Row], title: str | None, *, undoable: bool
) -> int:
    """Write `rows` as the generation after `current` and return it; with `undoable`, `current`
    becomes the undo point, else the session has none."""
    now = time.time()
    generation = current + 1
    conn.executemany(
        "INSERT INTO messages (session_id, generation, seq, role, json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [(session_id, generation, seq, role, text, now) for seq, (role, text) in enumerate(rows)],
    )
    conn.execute(
        "UPDATE sessions SET transcript_generation = ?, updated_at = ?, title = COALESCE(title, ?) WHERE id = ?",
        (generation, now, title, session_id),
    )
    if undoable:
        kept = undo.keep(conn, session_id, current, len(rows))
    else:
        kept = None
        undo.forget(conn, session_id)
    drop_old(conn, session_id, generation, kept)
    return generation


def drop_old(conn: sqlite3.Connection, session_id: str, generation: int, kept: int | None) -> None:
    """Delete the generations before `generation` except `kept`, keeping the rows that cannot be read."""
    old = conn.execute(
        "SELECT generation, seq, json FROM messages WHERE session_id = ? AND generation < ? AND generation IS NOT ?",
        (session_id, generation, kept),
    ).fetchall()
    readable = [(g, seq) for g, seq, text in old if _readable(text)]
    if len(readable) == len(old):
        conn.execute(
            "DELETE FROM messages WHERE session_id = ? AND generation < ? AND generation IS NOT ?",
            (session_id, generation, kept),
        )
    else:
        conn.executemany(
            "DELETE FROM messages WHERE session_id = ? AND generation = ? AND seq = ?",
            [(session_id, g, seq) for g, seq in readable],
        )


def _readable(text: str) -> bool:
    try:
        read_row(text)
    except BadRow:
        return False
    return True
