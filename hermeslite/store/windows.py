"""Context windows learned from providers, kept per model for every later session.

A server that refuses a request as too long often states its real window
("maximum context length is 4096 tokens"). The agent adopts it at once; kept
here, any session opened later on that model, in this process or a new one,
starts from it rather than overflowing again. The window is a fact about the
model, not about the conversation that ran into it: a `-p` run whose first
request overflowed keeps no session, and the next run must still know it.
Names are compared with `same_model`, so `claude-x` finds what
`anthropic/claude-x` learned.
"""

from __future__ import annotations

import sqlite3
import time

from hermeslite.llm.model_names import same_model


def remember(conn: sqlite3.Connection, model: str, tokens: int) -> None:
    """Keep `tokens` as `model`'s window (the latest statement wins, under whichever spelling)."""
    stale = [name for (name,) in conn.execute("SELECT model FROM model_windows") if same_model(name, model)]
    conn.executemany("DELETE FROM model_windows WHERE model = ?", [(name,) for name in stale])
    conn.execute(
        "INSERT INTO model_windows (model, tokens, learned_at) VALUES (?, ?, ?)", (model, int(tokens), time.time())
    )


SELECT_WINDOWS = "SELECT model, tokens FROM model_windows ORDER BY learned_at DESC"


def window_of(rows: list[tuple], model: str) -> int | None:
    """The newest window among `rows` (model, tokens; newest first) learned for `model` under any spelling."""
    return next((int(tokens) for name, tokens in rows if same_model(name, model)), None)
