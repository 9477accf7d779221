"""The undo point (the transcript before the latest compaction), checkpoint edits and handoff seeds."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hermeslite.context.handoff import summary_message
from hermeslite.store import undo
from hermeslite.store.schema import _V1
from hermeslite.store.sessions import NothingToUndo, SessionStore

SYSTEM = {"role": "system", "content": "sys"}


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "sessions.db")
    yield s
    s.close()


def turns(n: int, start: int = 0) -> list[dict]:
    out = []
    for i in range(start, start + n):
        out += [{"role": "user", "content": f"ask {i}"}, {"role": "assistant", "content": f"answer {i}", "_hl_x": i}]
    return out


def compacted(text: str = "the checkpoint") -> list[dict]:
    return [
        SYSTEM,
        summary_message("user", f"## Goal\n{text}", {"users": ["ask 0"]}),
        {"role": "assistant", "content": "answer 9"},
    ]


def generations(store: SessionStore, sid: str) -> set[int]:
    conn = sqlite3.connect(store.path)
    return {row[0] for row in conn.execute("SELECT DISTINCT generation FROM messages WHERE session_id = ?", (sid,))}


def session(store: SessionStore, messages: list[dict]) -> str:
    sid = store.create_session("m", "/w")
    for m in messages:
        store.append_message(sid, m)
    return sid


def test_undo_restores_the_transcript_exactly_followed_by_what_came_after(store: SessionStore):
    before = [SYSTEM, *turns(10)]
    sid = session(store, before)
    store.apply_compaction(sid, compacted(), {"r0000000001": before[1]})
    later = turns(2, start=10)
    for m in later:
        store.append_message(sid, m)
    done = store.undo_compaction(sid)
    assert store.load_transcript(sid) == before + later
    assert (done.restored, done.added_since, done.replaced) == (len(before), len(later), 3 + len(later))
    assert generations(store, sid) == {store.generation(sid)}  # nothing else is kept
    with pytest.raises(NothingToUndo, match="nothing to undo: no compaction since"):
        store.undo_compaction(sid)  # no undo of an undo


def test_only_the_latest_compaction_can_be_undone(store: SessionStore):
    sid = session(store, [SYSTEM, *turns(10)])
    store.apply_compaction(sid, compacted("first"))
    second_before = compacted("first") + turns(3, start=20)
    for m in turns(3, start=20):
        store.append_message(sid, m)
    store.apply_compaction(sid, compacted("second"))
    assert len(generations(store, sid)) == 2  # the current one and one undo point, never more
    store.undo_compaction(sid)
    assert store.load_transcript(sid) == second_before


def test_the_undo_point_survives_reopening_the_database(tmp_path: Path):
    path = tmp_path / "sessions.db"
    before = [SYSTEM, *turns(4)]
    with SessionStore(path) as first:
        sid = session(first, before)
        first.apply_compaction(sid, compacted())
    with SessionStore(path) as second:
        second.undo_compaction(sid)
        assert second.load_transcript(sid) == before


def test_a_transcript_over_the_bound_is_not_kept_and_undo_says_why(store: SessionStore, monkeypatch):
    monkeypatch.setattr(undo, "UNDO_MAX_BYTES", 1024)
    sid = session(
        store, [SYSTEM, {"role": "user", "content": "x" * 1500}, {"role": "assistant", "content": "y" * 1500}]
    )
    store.apply_compaction(sid, compacted())
    assert generations(store, sid) == {store.generation(sid)}  # dropped as before the undo point existed
    point = store.undo_point(sid)
    assert point.generation is None and point.size_bytes > 1024
    with pytest.raises(
        NothingToUndo, match=r"before it was 3 KB, more than the 1 KB kept for undo; its originals stay in the archive"
    ):
        store.undo_compaction(sid)
    assert store.load_transcript(sid) == compacted()


def test_a_rewrite_that_is_not_a_compaction_drops_the_undo_point(store: SessionStore):
    sid = session(store, [SYSTEM, *turns(3)])
    store.apply_compaction(sid, compacted())
    store.replace_transcript(sid, [SYSTEM, *turns(1)])
    assert store.undo_point(sid) is None
    with pytest.raises(NothingToUndo):
        store.undo_compaction(sid)


def test_an_edited_checkpoint_is_saved_in_place_and_undo_still_works(store: SessionStore):
    before = [SYSTEM, *turns(5)]
    sid = session(store, before)
    store.apply_compaction(sid, compacted())
    after = turns(1, start=50)
    for m in after:
        store.append_message(sid, m)
    edited = summary_message("user", "## Goal\nEDITED", {"users": ["ask 0"]})
    store.replace_checkpoint(sid, edited)
    loaded = store.load_transcript(sid)
    assert loaded[1] == edited and loaded[2:] == compacted()[2:] + after
    store.undo_compaction(sid)
    assert store.load_transcript(sid) == before + after


def test_replacing_a_checkpoint_needs_one(store: SessionStore):
    sid = session(store, [SYSTEM, *turns(1)])
    with pytest.raises(LookupError, match="no stored checkpoint"):
        store.replace_checkpoint(sid, summary_message("user", "x", {}))


def test_a_seeded_session_records_its_parent_and_inherits_only_referenced_originals(store: SessionStore):
    parent = session(store, [SYSTEM, *turns(2)])
    store.archive(
        parent,
        {
            "r00000000aa": {"role": "tool", "content": "kept original"},
            "r00000000bb": {"role": "tool", "content": "not referenced"},
        },
    )
    child = store.create_session("m", "/w", parent_id=parent)
    seeded = [
        SYSTEM,
        {"role": "user", "content": "see [pruned; recall id r00000000aa]"},
        {"role": "assistant", "content": "seen"},
    ]
    store.seed_session(child, seeded, {"r00000000cc": {"role": "user", "content": "summarized"}}, parent)
    assert store.load_transcript(child) == seeded
    assert store.get_session(child).parent_id == parent and store.get_session(parent).parent_id is None
    assert store.recall(child, "r00000000aa") == {"role": "tool", "content": "kept original"}
    assert store.recall(child, "r00000000cc") == {"role": "user", "content": "summarized"}
    assert store.recall(child, "r00000000bb") is None
    assert store.undo_point(child) is None  # a seed is not a compaction: nothing to undo


def test_a_version_1_database_opens_and_gains_lineage_and_undo(tmp_path: Path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for statement in _V1:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO sessions (id, created_at, updated_at, title) VALUES ('old', 1, 1, 'hello')")
    old = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for seq, message in enumerate(old):
        conn.execute("INSERT INTO messages VALUES ('old', 0, ?, ?, ?, 1)", (seq, message["role"], json.dumps(message)))
    conn.commit()
    conn.close()
    with SessionStore(path) as store:
        assert store.load_transcript("old") == old
        assert store.get_session("old").parent_id is None
        store.apply_compaction(
            "old", [{"role": "user", "content": "compacted"}, {"role": "assistant", "content": "ok"}]
        )
        store.undo_compaction("old")
        assert store.load_transcript("old") == old
