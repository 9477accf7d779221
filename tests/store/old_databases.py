"""Session databases as older hermeslite versions left them, for the migration tests."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from hermeslite.store.schema import MIGRATIONS


def write_old_database(path: Path, version: int) -> str:
    """A database as hermeslite wrote it at schema `version`: the same DDL, the same inserts."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    for migration in MIGRATIONS[:version]:
        for statement in migration:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    sid, now = "20261101-090000-abcdef", time.time()
    conn.execute(
        "INSERT INTO sessions (id, created_at, updated_at, title, model, cwd) VALUES (?, ?, ?, ?, ?, ?)",
        (sid, now, now, None, "openai/test-model", "/project"),
    )
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "old question"},
        {"role": "assistant", "content": "old answer"},
    ]
    for seq, message in enumerate(messages):
        conn.execute(
            "INSERT INTO messages (session_id, generation, seq, role, json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (sid, 0, seq, message["role"], json.dumps(message), now),
        )
    conn.execute(
        "UPDATE sessions SET updated_at = ?, title = COALESCE(title, ?) WHERE id = ?", (now, "old question", sid)
    )
    conn.execute(
        "INSERT INTO archive (session_id, ref, json, created_at) VALUES (?, ?, ?, ?)",
        (sid, "r0123456789", json.dumps({"role": "tool", "tool_call_id": "c", "content": "long"}), now),
    )
    if version >= 2:
        conn.execute(
            "INSERT INTO usage (session_id, at, kind, model, prompt_tokens) VALUES (?, ?, 'turn', ?, ?)",
            (sid, now, "openai/test-model", 1234),
        )
    conn.close()
    return sid
