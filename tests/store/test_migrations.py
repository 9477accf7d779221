"""Sessions saved before a schema change still open, and carry on, with the new code."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermeslite.config import ModelConfig, Settings
from hermeslite.resume import choose_session
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
