"""Sessions across real `hermeslite` processes: one writer per session, kills, models, and storage faults."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hermeslite.store.schema import SCHEMA_VERSION
from hermeslite.store.sessions import NO_SAVED_REPLY, SessionStore
from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.faults import fill, read_only, small_disk
from tests.server import Reply, ScriptedServer


def start(args: list[str], home: Path, cwd: Path, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "hermeslite", *args],
        cwd=cwd,
        env=env_for(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def conversation(home: Path) -> list[tuple[str, str]]:
    with SessionStore(home / "data" / "sessions.db") as store:
        messages = store.load_transcript(store.latest_session_id())
    return [(m["role"], m["content"]) for m in messages if m["role"] in ("user", "assistant")]


def sent(body: dict) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in body["messages"] if m["role"] in ("user", "assistant")]


def first_turn(server: ScriptedServer, home: Path, cwd: Path) -> None:
    server.enqueue(Reply.text("first answer"))
    done = hermeslite(["-p", "first", *model_args(server)], home, cwd)
    assert done.returncode == 0, done.stderr


# -- one writer per session -------------------------------------------------------------


def test_a_second_process_cannot_continue_a_session_in_use(scripted_server, tmp_path):
    home = tmp_path / "home"
    first_turn(scripted_server, home, tmp_path)
    scripted_server.enqueue(Reply.delay(4, Reply.text("answer A")))
    a = start(["-p", "A1", "--continue", *model_args(scripted_server)], home, tmp_path)
    wait_for(lambda: len(scripted_server.requests) == 2, "process A's request")
    b = hermeslite(["-p", "B1", "--continue", *model_args(scripted_server)], home, tmp_path)
    out, err = a.communicate(timeout=120)
    assert a.returncode == 0 and out.strip() == "answer A", err
    with SessionStore(home / "data" / "sessions.db") as store:
        sid = store.latest_session_id()
    assert b.returncode == 1 and b.stdout == ""
    assert (
        b.stderr == f"hermeslite: session {sid} is in use by pid {a.pid} (hermeslite); wait for it or start a new one\n"
    )
    assert conversation(home) == [
        ("user", "first"),
        ("assistant", "first answer"),
        ("user", "A1"),
        ("assistant", "answer A"),
    ]
    assert not any("B1" in json.dumps(body) for body in scripted_server.requests)
    assert list((home / "data" / "sessions.db.locks").iterdir()) == []  # A closed its session on the way out
    scripted_server.enqueue(Reply.text("answer B"))
    again = hermeslite(["-p", "B1", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert again.returncode == 0, again.stderr
    assert conversation(home)[-2:] == [("user", "B1"), ("assistant", "answer B")]


def test_a_compaction_in_one_process_cannot_drop_a_turn_of_another(scripted_server, tmp_path):
    home = tmp_path / "home"
    with SessionStore(home / "data" / "sessions.db") as store:
        sid = store.create_session("openai/test-model", str(tmp_path), api_base=scripted_server.base_url)
        store.append_message(sid, {"role": "system", "content": "sys"})
        for n in range(12):
            store.append_message(sid, {"role": "user", "content": f"step {n}: " + "please look at this " * 40})
            store.append_message(sid, {"role": "assistant", "content": f"done {n}: " + "long findings " * 150})
    # The test model's window (8,192 tokens) is one where a checkpoint is built by code; this one asks the model.
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text("compression:\n  min_summary_tokens: 0\n")
    scripted_server.responder = lambda body: None if body.get("stream") else Reply.delay(3, Reply.text("noted"))
    a = start(["--resume", sid, *model_args(scripted_server)], home, tmp_path, stdin=subprocess.PIPE)
    assert a.stdin is not None
    a.stdin.write("/compress\n")
    a.stdin.flush()
    wait_for(lambda: len(scripted_server.requests) >= 1, "process A's compaction to call the model")
    b = hermeslite(["-p", "B1", "--resume", sid, *model_args(scripted_server)], home, tmp_path)
    _out, err = a.communicate("", timeout=120)
    assert a.returncode == 0, err
    assert "compressing (manual)" in err
    assert b.returncode == 1 and f"session {sid} is in use by pid {a.pid}" in b.stderr
    with SessionStore(home / "data" / "sessions.db") as store:
        compactions = store.compactions(sid)
        after_compaction = store.load_transcript(sid)
    assert [c.trigger for c in compactions] == ["manual"] and not compactions[0].aborted
    assert len(after_compaction) < 25
    scripted_server.responder = None
    scripted_server.enqueue(Reply.text("answer B"))
    again = hermeslite(["-p", "B1", "--resume", sid, *model_args(scripted_server)], home, tmp_path)
    assert again.returncode == 0, again.stderr
    assert conversation(home)[-2:] == [("user", "B1"), ("assistant", "answer B")]


def test_kill_9_while_the_reply_is_awaited_frees_the_session_and_keeps_the_ask(scripted_server, tmp_path):
    home = tmp_path / "home"
    first_turn(scripted_server, home, tmp_path)
    scripted_server.enqueue(Reply.delay(8, Reply.text("never delivered")))
    a = start(["-p", "A1", "--continue", *model_args(scripted_server)], home, tmp_path, start_new_session=True)
    wait_for(lambda: len(scripted_server.requests) == 2, "process A's request")
    os.killpg(a.pid, signal.SIGKILL)
    a.communicate(timeout=30)
    assert conversation(home)[-1] == ("assistant", NO_SAVED_REPLY)  # repaired on load, text kept before it
    scripted_server.enqueue(Reply.text("back again"))
    b = hermeslite(["-p", "B1", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert b.returncode == 0, b.stderr
    assert sent(scripted_server.requests[-1]) == [
        ("user", "first"),
        ("assistant", "first answer"),
        ("user", "A1"),
        ("assistant", NO_SAVED_REPLY),
        ("user", "B1"),
    ]


# -- which session, which model -------------------------------------------------------------


def test_continue_keeps_the_recorded_model_and_says_when_it_changes(scripted_server, tmp_path):
    home = tmp_path / "home"
    first_turn(scripted_server, home, tmp_path)
    scripted_server.enqueue(Reply.text("second answer"))
    second = hermeslite(["-p", "second", "--continue"], home, tmp_path)  # no --model: the config has none
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "second answer"
    assert scripted_server.requests[-1]["model"] == "test-model"
    assert "continues on its own model openai/test-model" in second.stderr
    scripted_server.enqueue(Reply.text("third answer"))
    third = hermeslite(
        ["-p", "third", "--continue", "--model", "openai/other-model", "--api-base", scripted_server.base_url],
        home,
        tmp_path,
    )
    assert third.returncode == 0, third.stderr
    assert "was recorded with openai/test-model; continuing on openai/other-model as asked (--model)" in third.stderr
    assert scripted_server.requests[-1]["model"] == "other-model"
    scripted_server.enqueue(Reply.text("fourth answer"))
    fourth = hermeslite(["-p", "fourth", "--continue"], home, tmp_path)
    assert fourth.returncode == 0, fourth.stderr
    assert scripted_server.requests[-1]["model"] == "other-model"


def test_continue_with_no_session_says_so_and_starts_one(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("fresh"))
    done = hermeslite(["-p", "hi", "--continue", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("hermeslite: no session to continue; starting a new one\n")
    assert done.stdout.strip() == "fresh"


def test_resume_with_an_empty_id_says_so_instead_of_starting_a_new_session(scripted_server, tmp_path):
    home = tmp_path / "home"
    assert hermeslite(["-p", "first", *model_args(scripted_server)], home, tmp_path).returncode == 0
    done = hermeslite(["-p", "second", "--resume", "", *model_args(scripted_server)], home, tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "hermeslite: no session id given (`hermeslite sessions` lists them)\n"
    assert len(scripted_server.requests) == 1
    assert len(sessions_db(home).list_sessions()) == 1


def test_an_unreadable_message_is_skipped_with_a_warning(scripted_server, tmp_path):
    home = tmp_path / "home"
    first_turn(scripted_server, home, tmp_path)
    conn = sqlite3.connect(home / "data" / "sessions.db")
    conn.execute("UPDATE messages SET json = 'first answ' WHERE role = 'assistant'")
    conn.commit()
    conn.close()
    scripted_server.enqueue(Reply.text("second answer"))
    done = hermeslite(["-p", "second", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "hermeslite: warning: session " in done.stderr
        and "skipped 1 unreadable stored message(s) (#3: not valid JSON)" in done.stderr
    )
    assert sent(scripted_server.requests[-1]) == [("user", "first"), ("assistant", NO_SAVED_REPLY), ("user", "second")]


# -- storage faults: one line, no traceback, nothing written into a bad file -----------------------


def _garbage(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database at all\n" * 100)


def _directory(db: Path) -> None:
    db.mkdir(parents=True)


def _newer(db: Path) -> None:
    SessionStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()


@pytest.mark.parametrize(
    "make, expected",
    [
        (_garbage, "is damaged (file is not a database); hermeslite will not write to it"),
        (_directory, "is a directory, not a session database; move it aside"),
        (_newer, f"uses session schema v{SCHEMA_VERSION + 5}, but this hermeslite knows only up to v{SCHEMA_VERSION}"),
    ],
    ids=["garbage", "directory", "newer"],
)
@pytest.mark.parametrize("command", [["-p", "hi"], ["sessions"]], ids=["prompt", "sessions"])
def test_a_bad_database_is_one_line_and_left_alone(tmp_path, make, expected, command):
    home = tmp_path / "home"
    db = home / "data" / "sessions.db"
    make(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest() if db.is_file() else None
    done = hermeslite(
        [*command, "--model", "openai/test-model", "--api-base", "http://127.0.0.1:9/v1"]
        if command[0] == "-p"
        else command,
        home,
        tmp_path,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("hermeslite: ")
    assert str(db) in done.stderr and expected in done.stderr
    if before is not None:
        assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_home_that_cannot_hold_a_data_folder(tmp_path):
    home = tmp_path / "home"
    home.write_text("a file, not a folder")
    done = hermeslite(["-p", "hi", "--model", "openai/test-model"], home, tmp_path)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"hermeslite: cannot save sessions in {home / 'data'} (Not a directory)")


def test_a_read_only_data_folder_is_one_line(tmp_path):
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    with read_only(home / "data"):
        done = hermeslite(["-p", "hi", "--model", "openai/test-model"], home, tmp_path)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"hermeslite: cannot save sessions in {home / 'data'}")
    assert "HERMESLITE_HOME" in done.stderr


def test_a_disk_that_fills_mid_turn_keeps_the_reply_and_says_it_was_not_saved(scripted_server, tmp_path):
    home = tmp_path / "home"
    with small_disk(home / "data", 1024) as data:
        first_turn(scripted_server, home, tmp_path)
        scripted_server.enqueue(Reply.delay(2, Reply.text("the reply the disk could not take")))
        proc = start(["-p", "second", "--continue", *model_args(scripted_server)], home, tmp_path)
        wait_for(lambda: len(scripted_server.requests) == 2, "the second request")
        filler = fill(data)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1
        assert out.strip() == "the reply the disk could not take"
        assert "Traceback" not in err and "cannot rollback" not in err
        [line] = [line for line in err.splitlines() if "not saved" in line]
        assert "is full" in line and str(data / "sessions.db") in line
        filler.unlink()
        scripted_server.enqueue(Reply.text("third answer"))
        third = hermeslite(["-p", "third", "--continue", *model_args(scripted_server)], home, tmp_path)
        assert third.returncode == 0, third.stderr
        assert conversation(home) == [
            ("user", "first"),
            ("assistant", "first answer"),
            ("user", "second"),
            ("assistant", NO_SAVED_REPLY),
            ("user", "third"),
            ("assistant", "third answer"),
        ]
