"""The store keeps an idle compaction's record, in a new database and in one written before v10."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermeslite.store.compactions import CompactionRecord
from hermeslite.store.sessions import SessionStore
from tests.store.old_databases import write_old_database


def test_a_v9_database_takes_the_idle_trigger_and_keeps_its_old_records(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    sid = write_old_database(path, 9)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "INSERT INTO compactions (session_id, at, trigger, tokens_before, tokens_after, messages_before, "
        "messages_after) VALUES (?, 1.0, 'preflight', 900, 300, 12, 4)",
        (sid,),
    )
    with pytest.raises(sqlite3.IntegrityError):  # v1's CHECK knew three triggers
        conn.execute(
            "INSERT INTO compactions (session_id, at, trigger, tokens_before, tokens_after, messages_before, "
            "messages_after) VALUES (?, 2.0, 'idle', 1, 1, 1, 1)",
            (sid,),
        )
    conn.close()
    with SessionStore(path) as store:
        store.record_compaction(sid, CompactionRecord("idle", 8_000, 2_500, 30, 6))
        assert [(r.trigger, r.tokens_before) for r in store.compactions(sid)] == [("preflight", 900), ("idle", 8_000)]


def test_an_unknown_trigger_is_still_refused_by_the_code() -> None:
    with pytest.raises(ValueError, match="idle"):
        CompactionRecord("idel", 1, 1, 1, 1)
