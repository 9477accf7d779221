"""How a `hermeslite` process ends: quickly (the interpreter's teardown is skipped), but with every byte
of output delivered, the session closed and checkpointed, and the exit handlers run."""

from __future__ import annotations

import time
from pathlib import Path

from tests.cli_process import hermeslite, model_args, sessions_db
from tests.server import Reply, ScriptedServer

LONG = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(8000))  # ~450 KB


def test_a_long_reply_reaches_the_pipe_whole_and_the_session_is_closed(
    scripted_server: ScriptedServer, home: Path, workdir: Path
):
    scripted_server.enqueue(Reply.text(LONG, chunks=400))
    done = hermeslite(["-p", "print it", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == LONG
    data = home / "data"
    wal = data / "sessions.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # checkpointed: the database file alone holds it all
    assert list((data / "sessions.db.locks").glob("*.lock")) == []
    with sessions_db(home) as store:
        assert store.load_transcript(store.latest_session_id())[-1]["content"] == LONG


def test_a_tool_s_background_process_dies_with_hermeslite(scripted_server: ScriptedServer, home: Path, workdir: Path):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "sleep 300 > /dev/null 2>&1 & echo $! > bg.pid"})]),
        Reply.text("started"),
    )
    done = hermeslite(["-p", "start it", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 0, done.stderr
    pid = int((workdir / "bg.pid").read_text())
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, "the background process outlived hermeslite"
        time.sleep(0.05)


def test_a_failed_turn_still_exits_1_with_its_error_on_stderr(
    scripted_server: ScriptedServer, home: Path, workdir: Path
):
    scripted_server.enqueue(Reply.error(400, "bad request: nope"))
    done = hermeslite(["-p", "hello", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 1
    assert "nope" in done.stderr


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False
