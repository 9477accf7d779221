"""An error nobody planned for ends `hermeslite -p` with one line naming it and the session, exit 1.

The fault is real and comes from outside: MEMORY.md holding bytes that are
not UTF-8 (written by another editor), which the system prompt fails to read.
"""

from __future__ import annotations

from pathlib import Path

from tests.agent.test_compaction import CHECKPOINT
from tests.cli.test_cli_chat import hermeslite, model_args, sessions_db
from tests.server import Reply, ScriptedServer
from tests.summary_requests import is_summary_request

DECODE_ERROR = "unexpected error: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff"


def corrupt_memory(home: Path) -> None:
    folder = home / "data"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_bytes(b"\xff\xfe not utf-8 \xe9t\xe9\n")


def test_a_fault_at_start_is_one_line_and_leaves_no_empty_session(scripted_server: ScriptedServer, tmp_path):
    home = tmp_path / "home"
    corrupt_memory(home)
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 1
    assert done.stdout == "" and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"hermeslite: {DECODE_ERROR}")
    assert line.endswith("; no session was started (--verbose shows the traceback)")
    assert scripted_server.requests == []
    with sessions_db(home) as store:
        assert store.list_sessions() == []


def test_a_fault_inside_a_turn_names_the_saved_session_and_verbose_shows_the_traceback(
    scripted_server: ScriptedServer, tmp_path
):
    home = tmp_path / "home"
    scripted_server.responder = lambda body: Reply.text(CHECKPOINT) if is_summary_request(body) else None
    scripted_server.enqueue(Reply.text("first answer " * 400))
    config = tmp_path / "small.yaml"
    config.write_text("compression:\n  context_length: 6000\n")
    args = [*model_args(scripted_server), "--config", str(config)]
    assert hermeslite(["-p", "first question", *args], home, tmp_path).returncode == 0
    corrupt_memory(home)  # after the first run: the saved system prompt is reused, until a compaction rebuilds it
    crashed = hermeslite(["-p", "second question " * 300, "--continue", "--verbose", *args], home, tmp_path)
    assert crashed.returncode == 1
    with sessions_db(home) as store:
        sid = store.latest_session_id()
        kept = [m["content"] for m in store.load_transcript(sid) if m["role"] == "user"]
    assert "Traceback (most recent call last)" in crashed.stderr and "UnicodeDecodeError" in crashed.stderr
    last = crashed.stderr.strip().splitlines()[-1]
    assert last.startswith(f"hermeslite: {DECODE_ERROR}")
    assert last.endswith(f"; session {sid} is saved (hermeslite --resume {sid} continues it)")
    assert kept[-1].startswith("second question")  # the question is in the saved session
