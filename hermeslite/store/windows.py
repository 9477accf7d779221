"""Context windows learned from providers, kept with the session they were learned in.

A server that refuses a request as too long often states its real window
("maximum context length is 4096 tokens"). The agent adopts it at once; kept
here, a session continued in a new process (`-p ... --continue` is a new
process every turn) starts from it rather than overflowing again. The window
belongs to a model, not to the session as a whole: after `/model` the other
model starts from its own window, and switching back finds this one again.
"""

from __future__ import annotations

import sqlite3
import time


def remember(conn: sqlite3.Connection, session_id: str, model: str, tokens: int) -> None:
    """Keep `tokens` as `model`'s window in this session (the latest statement wins)."""
    conn.execute(
        "INSERT INTO learned_windows (session_id, model, tokens, learned_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (session_id, model) DO UPDATE SET tokens = excluded.tokens, learned_at = excluded.learned_at",
        (session_id, model, int(tokens), time.time()),
    )


SELECT_WINDOW = "SELECT tokens FROM learned_windows WHERE session_id = ? AND model = ?"
