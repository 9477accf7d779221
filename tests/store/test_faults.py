"""Storage faults, made for real: each ends as one StoreError line, and nothing is written into a bad file."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hermeslite.store.errors import StoreDamaged, StoreError, StoreUnwritable, StoreWriteFailed
from hermeslite.store.schema import SCHEMA_VERSION, SchemaTooNew
from hermeslite.store.sessions import CompactionRecord, SessionStore
from tests.faults import fill, read_only, small_disk

REPO = Path(__file__).resolve().parents[2]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(error: BaseException) -> str:
    text = str(error)
    assert text and "\n" not in text and "Traceback" not in text
    return text


def saved_session(path: Path, turns: int = 30) -> str:
    with SessionStore(path) as store:
        sid = store.create_session("m", "/w")
        for n in range(turns):
            store.append_message(sid, {"role": "user", "content": f"question {n} " + "x" * 400})
            store.append_message(sid, {"role": "assistant", "content": f"answer {n} " + "y" * 400})
    return sid


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path):
    path = tmp_path / "sessions.db"
    path.write_bytes(b"these are my notes, not a database\n" * 50)
    before = digest(path)
    with pytest.raises(StoreDamaged) as err:
        SessionStore(path)
    text = one_line(err.value)
    assert str(path) in text and "damaged" in text and "move it aside" in text
    assert digest(path) == before
    assert not (tmp_path / "sessions.db-wal").exists()


def test_a_truncated_database_is_refused_and_left_alone(tmp_path: Path):
    path = tmp_path / "sessions.db"
    saved_session(path)
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)
    before = digest(path)
    with pytest.raises(StoreDamaged) as err:
        SessionStore(path)
    assert "malformed" in one_line(err.value) and str(path) in str(err.value)
    assert digest(path) == before


def test_damage_found_while_reading_stops_every_later_write(tmp_path: Path):
    path = tmp_path / "sessions.db"
    sid = saved_session(path)
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'messages'").fetchone()[0]
    conn.close()
    with open(path, "r+b") as handle:  # scribble over the messages table's root page
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * page_size)
    before = digest(path)
    store = SessionStore(path)  # the schema page is intact: opening works
    with pytest.raises(StoreDamaged):
        store.load_transcript(sid)
    with pytest.raises(StoreDamaged) as err:
        store.set_model(sid, "other/model", None)  # would need only the sessions table
    assert "will not write" in one_line(err.value)
    store.close()
    assert digest(path) == before


def test_a_newer_schema_is_refused_before_anything_is_written(tmp_path: Path):
    path = tmp_path / "sessions.db"
    saved_session(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")  # so switching it back to WAL would be a write
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = digest(path)
    with pytest.raises(SchemaTooNew) as err:
        SessionStore(path)
    assert f"v{SCHEMA_VERSION + 1}" in one_line(err.value) and "upgrade hermeslite" in str(err.value)
    assert isinstance(err.value, StoreError)
    assert digest(path) == before


def test_a_directory_where_the_database_should_be(tmp_path: Path):
    path = tmp_path / "sessions.db"
    path.mkdir()
    with pytest.raises(StoreDamaged) as err:
        SessionStore(path)
    assert one_line(err.value) == f"{path} is a directory, not a session database; move it aside to start a fresh one"


def test_a_data_folder_that_cannot_be_created(tmp_path: Path):
    blocker = tmp_path / "home"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(StoreUnwritable) as err:
        SessionStore(blocker / "data" / "sessions.db")
    assert str(blocker / "data") in one_line(err.value) and "HERMESLITE_HOME" in str(err.value)


@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_a_read_only_data_folder(tmp_path: Path, existing: bool):
    folder = tmp_path / "data"
    folder.mkdir()
    if existing:
        saved_session(folder / "sessions.db", turns=1)
    with read_only(folder), pytest.raises(StoreUnwritable) as err:
        SessionStore(folder / "sessions.db")
    assert str(folder) in one_line(err.value) and "writable" in str(err.value)


def test_a_bad_row_is_skipped_with_a_note_and_kept_in_the_database(tmp_path: Path):
    store = SessionStore(tmp_path / "sessions.db")
    sid = store.create_session("m", "/w")
    texts = ["first ask", "first answer", "second ask", "second answer"]
    for n, text in enumerate(texts):
        store.append_message(sid, {"role": "user" if n % 2 == 0 else "assistant", "content": text})
    conn = sqlite3.connect(store.path)
    conn.execute('UPDATE messages SET json = \'{"role": "assistant", "content": "cut of\' WHERE seq = 1')
    conn.execute("UPDATE messages SET json = '[1, 2]' WHERE seq = 3")
    conn.commit()
    restored = store.open_transcript(sid)
    assert [m["content"] for m in restored.messages if not str(m["content"]).startswith("[no reply")] == [
        "first ask",
        "second ask",
    ]
    [note] = restored.notes
    assert "skipped 2 unreadable" in note and "#2: not valid JSON" in note and "#4: a JSON list" in note
    # A compaction keeps the transcript before it whole, as the undo point; once the next one moves
    # the undo point on, that generation is dropped, but not the rows no message stands for.
    store.apply_compaction(sid, restored.messages, {}, CompactionRecord("manual", 10, 5, 4, 4))
    store.apply_compaction(sid, restored.messages, {}, CompactionRecord("manual", 10, 5, 4, 4))
    kept = conn.execute(
        "SELECT json FROM messages WHERE session_id = ? AND generation = 0 ORDER BY seq", (sid,)
    ).fetchall()
    assert [row[0] for row in kept] == ['{"role": "assistant", "content": "cut of', "[1, 2]"]
    assert store.open_transcript(sid).notes == []
    conn.close()
    store.close()


_FILL_TO_LIMIT = """
import resource, sys
from pathlib import Path
from hermeslite.store.sessions import SessionStore, StoreError
store = SessionStore(Path(sys.argv[1]))
sid = sys.argv[2]
store.append_message(sid, {"role": "user", "content": "before the limit"})
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, resource.RLIM_INFINITY))
for n in range(1000):
    try:
        store.append_message(sid, {"role": "assistant" if n % 2 else "user", "content": f"{n} " + "z" * 8000})
    except StoreError as exc:
        print(n, type(exc).__name__, exc, sep="\\t")
        break
"""


def test_a_write_past_the_file_size_limit_is_one_clear_error(tmp_path: Path):
    """Without privileges a full disk is a file-size limit: the write fails with EFBIG, as ENOSPC would."""
    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        sid = store.create_session("m", "/w")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _FILL_TO_LIMIT, str(path), sid], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    written, kind, message = done.stdout.strip().split("\t")
    assert kind == "StoreWriteFailed" and str(path) in message
    assert "cannot rollback" not in message and "\n" not in message
    with SessionStore(path) as store:
        contents = [m["content"] for m in store.load_transcript(sid)]
    assert contents[0] == "before the limit"
    assert len([c for c in contents if c.startswith(tuple("0123456789"))]) == int(written)


def test_a_full_disk_is_one_clear_error_and_the_store_recovers(tmp_path: Path):
    with small_disk(tmp_path / "disk", 512) as disk:
        store = SessionStore(disk / "sessions.db")
        sid = store.create_session("m", "/w")
        store.append_message(sid, {"role": "user", "content": "fits"})
        filler = fill(disk)
        with pytest.raises(StoreWriteFailed) as err:
            for n in range(200):
                store.append_message(sid, {"role": "assistant", "content": f"{n} " + "w" * 4000})
        text = one_line(err.value)
        assert "full" in text and str(disk / "sessions.db") in text and "cannot rollback" not in text
        filler.unlink()
        store.append_message(sid, {"role": "assistant", "content": "fits again"})
        contents = [m["content"] for m in store.load_transcript(sid)]
        assert contents[0] == "fits" and contents[-1] == "fits again"
        store.close()
