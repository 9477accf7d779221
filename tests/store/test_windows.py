"""Windows learned from providers' overflow errors, kept per session and model."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hermeslite.store.schema import SCHEMA_VERSION
from hermeslite.store.sessions import SessionStore
from tests.store.old_databases import write_old_database


def test_a_learned_window_is_kept_per_model_and_the_latest_statement_wins(tmp_path: Path):
    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        sid = store.create_session("openai/small", "/project")
        other = store.create_session("openai/small", "/project")
        store.remember_window(sid, "openai/small", 4_096)
        store.remember_window(sid, "openai/small", 3_000)
    with SessionStore(path) as store:  # a new process
        assert store.learned_window(sid, "openai/small") == 3_000
        assert store.learned_window(sid, "openai/big") is None
        assert store.learned_window(other, "openai/small") is None


def test_deleting_a_session_deletes_its_learned_windows(tmp_path: Path):
    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        sid = store.create_session("openai/small", "/project")
        store.remember_window(sid, "openai/small", 4_096)
        assert store.delete_session(sid)
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM learned_windows").fetchone()[0] == 0


def test_a_v5_database_migrates_and_its_sessions_can_learn_a_window(tmp_path: Path):
    path = tmp_path / "sessions.db"
    sid = write_old_database(path, 5)
    with SessionStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION >= 6
        assert store.learned_window(sid, "openai/test-model") is None
        assert [m["content"] for m in store.load_transcript(sid)] == ["sys", "old question", "old answer"]
        store.remember_window(sid, "openai/test-model", 4_096)
    with SessionStore(path) as store:
        assert store.learned_window(sid, "openai/test-model") == 4_096
