"""Windows learned from providers' overflow errors, kept per model for every later session."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hermeslite.store.schema import SCHEMA_VERSION
from hermeslite.store.sessions import SessionStore
from tests.store.old_databases import write_old_database


def test_a_learned_window_is_kept_per_model_and_the_latest_statement_wins(tmp_path: Path):
    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        store.remember_window("openai/small", 4_096)
        store.remember_window("openai/small", 3_000)
    with SessionStore(path) as store:  # a new process
        assert store.learned_window("openai/small") == 3_000
        assert store.learned_window("openai/big") is None


def test_a_window_is_the_models_under_either_spelling_of_its_name(tmp_path: Path):
    with SessionStore(tmp_path / "sessions.db") as store:
        store.remember_window("anthropic/claude-sonnet-4-5", 150_000)
        assert store.learned_window("claude-sonnet-4-5") == 150_000
        store.remember_window("claude-sonnet-4-5", 120_000)  # the latest statement, whichever spelling
        assert store.learned_window("anthropic/claude-sonnet-4-5") == 120_000
        assert store.learned_window("openrouter/anthropic/claude-sonnet-4-5") is None  # a router is not the model


def test_a_window_outlives_the_session_that_learned_it(tmp_path: Path):
    """A `-p` run whose first request overflowed keeps no session; what its provider stated stays."""
    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        sid = store.create_session("openai/small", "/project")
        store.remember_window("openai/small", 4_096)
        assert store.delete_session(sid)
        assert store.learned_window("openai/small") == 4_096


def test_a_v10_database_keeps_each_models_latest_learned_window(tmp_path: Path):
    path = tmp_path / "sessions.db"
    sid = write_old_database(path, 10)
    conn = sqlite3.connect(path, isolation_level=None)
    other = "s-other"
    conn.execute("INSERT INTO sessions (id, created_at, updated_at) VALUES (?, 1, 1)", (other,))
    rows = [(sid, "openai/small", 4_096, 1.0), (other, "openai/small", 3_000, 2.0), (sid, "openai/big", 64_000, 1.5)]
    conn.executemany("INSERT INTO learned_windows (session_id, model, tokens, learned_at) VALUES (?, ?, ?, ?)", rows)
    conn.close()
    with SessionStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.learned_window("openai/small") == 3_000
        assert store.learned_window("openai/big") == 64_000
    tables = {name for (name,) in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "learned_windows" not in tables


def test_a_v5_database_migrates_and_can_learn_a_window(tmp_path: Path):
    path = tmp_path / "sessions.db"
    sid = write_old_database(path, 5)
    with SessionStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.learned_window("openai/test-model") is None
        assert [m["content"] for m in store.load_transcript(sid)] == ["sys", "old question", "old answer"]
        store.remember_window("openai/test-model", 4_096)
    with SessionStore(path) as store:
        assert store.learned_window("openai/test-model") == 4_096
