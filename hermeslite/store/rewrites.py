"""SQL for the two rewrites of a stored session besides a compaction: an edited checkpoint and a handoff seed.

An edited checkpoint replaces one row in place: the newest row of the
current transcript that carries a checkpoint, so the transcript keeps its
length and the undo point stays valid. A handed-off session inherits from
the session it came from only the archived originals its transcript still
points to, not the whole archive.
"""

from __future__ import annotations

import json
import sqlite3
import time

from hermeslite.context.handoff import has_handoff
from hermeslite.context.messages import Message

from .transcript import BadRow, dumps_message, read_row

MAX_PARAMETERS = 500  # SQLite caps the parameters of one statement (999 in older builds)


def replace_checkpoint_row(conn: sqlite3.Connection, session_id: str, generation: int, message: Message) -> None:
    """Store `message` in place of the newest checkpoint row of `generation`; LookupError when there is none."""
    rows = conn.execute(
        "SELECT seq, json FROM messages WHERE session_id = ? AND generation = ? ORDER BY seq DESC",
        (session_id, generation),
    ).fetchall()
    seq = next((seq for seq, text in rows if _is_checkpoint(text)), None)
    if seq is None:
        raise LookupError(f"session {session_id} has no stored checkpoint to replace")
    conn.execute(
        "UPDATE messages SET json = ?, created_at = ? WHERE session_id = ? AND generation = ? AND seq = ?",
        (dumps_message(message), time.time(), session_id, generation, seq),
    )


def inherited_originals(conn: sqlite3.Connection, parent_id: str, refs: set[str]) -> dict[str, Message]:
    """The originals archived under `parent_id` whose reference ids are in `refs`."""
    wanted = sorted(refs)
    found: dict[str, Message] = {}
    for at in range(0, len(wanted), MAX_PARAMETERS):
        chunk = wanted[at : at + MAX_PARAMETERS]
        rows = conn.execute(
            f"SELECT ref, json FROM archive WHERE session_id = ? AND ref IN ({','.join('?' * len(chunk))})",
            (parent_id, *chunk),
        )
        found.update((ref, json.loads(text)) for ref, text in rows)
    return found


def _is_checkpoint(text: str) -> bool:
    try:
        return has_handoff(read_row(text))
    except BadRow:
        return False
