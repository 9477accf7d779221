"""The archive of originals a compaction removed: keep them, fetch one, find a tool call.

An original is stored once per reference id: the first one written is the
true original, so a later write of the same id is ignored. Searching the
archive by its text is archive_search.py's job.
"""

from __future__ import annotations

import json
import sqlite3
import time

from hermeslite.context.messages import Message, call_id, tool_calls_of

from .database import RunSQL
from .transcript import dumps_message


def insert_originals(conn: sqlite3.Connection, session_id: str, archived: dict[str, Message]) -> None:
    """Keep `archived` by reference id; an id already stored keeps its first original."""
    now = time.time()
    conn.executemany(
        "INSERT OR IGNORE INTO archive (session_id, ref, json, created_at) VALUES (?, ?, ?, ?)",
        [(session_id, ref, dumps_message(msg), now) for ref, msg in archived.items()],
    )


def fetch_original(query: RunSQL, session_id: str, ref: str) -> Message | None:
    rows = query("SELECT json FROM archive WHERE session_id = ? AND ref = ?", (session_id, ref))
    return json.loads(rows[0][0]) if rows else None


def originals_of(query: RunSQL, session_id: str, refs: list[str]) -> dict[str, Message]:
    """The archived originals among `refs`, by reference id, read in batches (SQLite limits parameters)."""
    wanted = sorted(set(refs))
    found: dict[str, Message] = {}
    for start in range(0, len(wanted), 500):
        batch = wanted[start : start + 500]
        marks = ", ".join("?" * len(batch))
        rows = query(f"SELECT ref, json FROM archive WHERE session_id = ? AND ref IN ({marks})", (session_id, *batch))
        found.update((ref, json.loads(text)) for ref, text in rows)
    return found


def tool_call_by_id(query: RunSQL, session_id: str, tool_call_id: str) -> dict | None:
    """The assistant tool call with this id, from the current transcript or the archive."""
    if not tool_call_id:
        return None
    pattern = (
        "%"
        + json.dumps(tool_call_id, ensure_ascii=False)[1:-1]
        .replace("\\", "\\\\")
        .replace("%", "\\%")
        .replace("_", "\\_")
        + "%"
    )
    rows = query(
        """SELECT m.json FROM messages m JOIN sessions s ON s.id = m.session_id
             WHERE m.session_id = ? AND m.generation = s.transcript_generation
               AND m.role = 'assistant' AND m.json LIKE ? ESCAPE '\\'
           UNION ALL
           SELECT json FROM archive WHERE session_id = ? AND json LIKE ? ESCAPE '\\'""",
        (session_id, pattern, session_id, pattern),
    )
    for (text,) in rows:
        for call in tool_calls_of(json.loads(text)):
            if call_id(call) == tool_call_id:
                return call
    return None
