"""One writer per session, across real processes: the second opener is told who has it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from hermeslite.store.locks import SessionLock
from hermeslite.store.sessions import SessionBusy, SessionStore
from tests.session_holder import start_holder


@pytest.fixture
def session(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        return path, store.create_session("m", "/w")


def test_a_session_open_in_another_process_is_refused_with_its_pid(session):
    path, sid = session
    holder = start_holder(path, sid)
    try:
        with SessionStore(path) as store:
            with pytest.raises(SessionBusy) as err:
                store.claim(sid)
            assert str(err.value) == (
                f"session {sid} is in use by pid {holder.pid} (hermeslite); wait for it or start a new one"
            )
            with pytest.raises(SessionBusy):
                store.append_message(sid, {"role": "user", "content": "sneaking in"})
            assert store.load_transcript(sid) == []  # reading is fine, and nothing was written
    finally:
        holder.communicate("go\n", timeout=60)
    assert holder.returncode == 0, holder.stderr
    with SessionStore(path) as store:  # the holder closed: the session is free again
        store.claim(sid)
        store.append_message(sid, {"role": "assistant", "content": "after the holder"})
        assert [m["content"] for m in store.load_transcript(sid)] == ["from the holder", "after the holder"]


def test_a_holder_killed_with_sigkill_does_not_keep_the_session(session):
    path, sid = session
    holder = start_holder(path, sid)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    lock_file = path.with_name(path.name + ".locks") / f"{sid}.lock"
    assert lock_file.read_text().split()[0] == str(holder.pid)  # left behind, but not locked
    with SessionStore(path) as store:
        store.claim(sid)
        assert lock_file.read_text().split()[0] == str(os.getpid())


def test_claims_are_reentrant_and_release_removes_the_lock_file(tmp_path: Path):
    folder = tmp_path / "locks"
    lock = SessionLock.acquire(folder, "s1")
    assert (folder / "s1.lock").read_text() == f"{os.getpid()} hermeslite\n"
    with pytest.raises(SessionBusy):
        SessionLock.acquire(folder, "s1")  # another open file description, even in this process
    lock.release()
    assert not (folder / "s1.lock").exists() and not lock.held
    again = SessionLock.acquire(folder, "s1")
    again.release()


def test_a_store_releases_its_claims_when_closed(session):
    path, sid = session
    first = SessionStore(path)
    first.claim(sid)
    first.claim(sid)
    second = SessionStore(path)
    with pytest.raises(SessionBusy):
        second.claim(sid)
    first.close()
    second.claim(sid)
    second.close()
