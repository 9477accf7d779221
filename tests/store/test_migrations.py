"""Sessions saved before a schema change still open, and carry on, with the new code."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermeslite.config import Settings
from hermeslite.llm.settings import ModelConfig
from hermeslite.resume import choose_session
from hermeslite.store.compactions import CompactionRecord
from hermeslite.store.schema import SCHEMA_VERSION
from hermeslite.store.sessions import SessionStore
from tests.store.old_databases import write_old_database


@pytest.mark.parametrize("version", [1, 2])
def test_an_old_session_opens_migrated_and_continues(tmp_path: Path, version: int):
    path = tmp_path / "sessions.db"
    sid = write_old_database(path, version)
    with SessionStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        info = store.get_session(sid)
        assert (info.model, info.api_base, info.title, info.message_count) == (
            "openai/test-model",
            None,
            "old question",
            3,
        )
        assert [m["content"] for m in store.load_transcript(sid)] == ["sys", "old question", "old answer"]
        assert store.recall(sid, "r0123456789")["content"] == "long"
        assert [u.prompt_tokens for u in store.usage(sid)] == ([1234] if version >= 2 else [])
        store.append_message(sid, {"role": "user", "content": "new question"})
        store.set_model(sid, "openai/test-model", "http://127.0.0.1:9/v1")
    with SessionStore(path) as store:
        assert store.get_session(sid).api_base == "http://127.0.0.1:9/v1"
        assert store.load_transcript(sid)[3] == {"role": "user", "content": "new question"}
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_continuing_an_old_session_keeps_the_configured_endpoint_for_its_model(tmp_path: Path):
    """Before v3 the endpoint was not recorded: the same model in the config brings its api_base along."""
    path = tmp_path / "sessions.db"
    sid = write_old_database(path, 2)
    settings = Settings(model=ModelConfig(name="openai/test-model", api_base="http://127.0.0.1:9/v1"))
    with SessionStore(path) as store:
        choice = choose_session(store, settings, continue_latest=True, resume=None, environ={})
    assert choice.session_id == sid and choice.notes == []
    assert (choice.settings.model.name, choice.settings.model.api_base) == (
        "openai/test-model",
        "http://127.0.0.1:9/v1",
    )


def test_a_v9_database_keeps_its_compaction_records_and_takes_the_agent_trigger(tmp_path: Path):
    """v1's CHECK allowed three triggers only; v10 rebuilds the table so the code's list decides."""
    path = tmp_path / "sessions.db"
    sid = write_old_database(path, 9)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "INSERT INTO compactions (session_id, at, trigger, focus, tokens_before, tokens_after, messages_before, "
        "messages_after) VALUES (?, 1.0, 'manual', 'db', 900, 300, 12, 4)",
        (sid,),
    )
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO compactions (session_id, at, trigger, tokens_before, tokens_after, messages_before, "
            "messages_after) VALUES (?, 2.0, 'agent', 1, 1, 1, 1)",
            (sid,),
        )
    conn.close()
    with SessionStore(path) as store:
        [old] = store.compactions(sid)
        assert (old.trigger, old.focus, old.tokens_before, old.tokens_after) == ("manual", "db", 900, 300)
        store.record_compaction(sid, CompactionRecord("agent", 800, 200, 10, 3, focus="the parser"))
        assert [(r.trigger, r.focus) for r in store.compactions(sid)] == [("manual", "db"), ("agent", "the parser")]
        store.delete_session(sid)  # the rebuilt table still follows its session out
        assert store.compactions(sid) == []
