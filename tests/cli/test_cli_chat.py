"""`hermeslite -p` as a user runs it: a real process, real HTTP, a real session store."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

from tests.builders import assert_valid
from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.server import Reply


def test_one_prompt_streams_the_reply_to_stdout(scripted_server, tmp_path):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "echo tool-ran"})]), Reply.text("All good: the tool ran.", chunks=3)
    )
    done = hermeslite(["-p", "run something", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "All good: the tool ran."
    assert "terminal" in done.stderr and "echo tool-ran" in done.stderr
    assert "Traceback" not in done.stderr


def test_continue_appends_to_the_latest_session(scripted_server, tmp_path):
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.text("first answer"), Reply.text("second answer"))
    assert hermeslite(["-p", "first", *model_args(scripted_server)], home, tmp_path).returncode == 0
    second = hermeslite(["-p", "second", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert second.returncode == 0, second.stderr
    sent = [m["content"] for m in scripted_server.requests[-1]["messages"] if m["role"] in ("user", "assistant")]
    assert sent == ["first", "first answer", "second"]
    store = sessions_db(home)
    assert len(store.list_sessions()) == 1
    listing = hermeslite(["sessions"], home, tmp_path)
    assert store.latest_session_id() in listing.stdout and "first" in listing.stdout


REJECTED_KEY = (
    "error: The provider rejected the API key for openai/test-model (401). Set OPENAI_API_KEY or model.api_key_env."
)


def test_errors_exit_non_zero_with_one_line(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided"))
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 1
    assert done.stderr == f"{REJECTED_KEY}\n"
    bad = hermeslite(["-p", "hi", "--resume", "nope", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert bad.returncode == 1
    assert bad.stderr == "hermeslite: no session matches 'nope' (`hermeslite sessions` lists them)\n"


def test_kill_9_mid_turn_then_continue_resumes_a_valid_transcript(scripted_server, tmp_path):
    home = tmp_path / "home"
    started = tmp_path / "started"
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": f"touch {started}; sleep 60"})]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermeslite", "-p", "long job", *model_args(scripted_server)],
        cwd=tmp_path,
        env=env_for(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started.exists(), "the tool never started"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    store = sessions_db(home)
    restored = store.load_transcript(store.latest_session_id())
    assert_valid(restored)
    assert restored[-1]["role"] == "tool" and "interrupted" in restored[-1]["content"]
    scripted_server.enqueue(Reply.text("picking up where we left off"))
    done = hermeslite(["-p", "are you back?", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "picking up where we left off"
    assert_valid(store.load_transcript(store.latest_session_id()))


def test_line_chat_on_stdin_with_slash_commands(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("hello back"))
    done = hermeslite(
        [*model_args(scripted_server)],
        tmp_path / "home",
        tmp_path,
        input="/help\nhello\n/compress database schema\n/bogus\n/quit\n",
    )
    assert done.returncode == 0, done.stderr
    assert "hello back" in done.stdout
    assert "/compress [--preview] [--upto N] [focus]" in done.stderr
    assert "Unknown command /bogus" in done.stderr
    assert "compressing (manual)" in done.stderr and "focus: database schema" in done.stderr


def test_line_chat_exits_non_zero_when_a_turn_failed(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided"), Reply.text("second answer"))
    done = hermeslite([*model_args(scripted_server)], tmp_path / "home", tmp_path, input="first\nsecond\n")
    assert done.returncode == 1, "a script must be able to tell that an answer is missing"
    assert "second answer" in done.stdout, "the chat goes on after a failed turn"
    assert done.stderr == f"{REJECTED_KEY}\n"


def test_line_chat_recall_searches_the_archive_and_shows_an_original(scripted_server, tmp_path):
    home = tmp_path / "home"
    with sessions_db(home) as store:
        sid = store.create_session("openai/test-model", str(tmp_path))
        store.append_message(sid, {"role": "user", "content": "what did the deploy print?"})
        store.archive(
            sid,
            {
                "r00000000d1": {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "name": "terminal",
                    "content": "the deploy key is KX-991-ALPHA\n[exit code: 0]",
                }
            },
        )
    done = hermeslite(
        ["--resume", sid, *model_args(scripted_server)],
        home,
        tmp_path,
        input="/help\n/recall deploy key\n/recall r00000000d1\n/recall ***\n/recall\n/quit\n",
    )
    assert done.returncode == 0, done.stderr
    assert "/recall <words|id>" in done.stderr
    assert '1 match for "deploy key" among 1 compacted original(s)' in done.stdout
    assert "1. r00000000d1 · output of terminal\n   the deploy key is KX-991-ALPHA [exit code: 0]" in done.stdout
    assert "[original output of terminal call c1]\nthe deploy key is KX-991-ALPHA\n[exit code: 0]" in done.stdout
    assert '"***" has no words or numbers to search for' in done.stdout
    assert "/recall <words> searches what compaction removed" in done.stdout
    assert scripted_server.requests == []  # lookups for the user: nothing sent to the model
    assert "Traceback" not in done.stderr


def test_line_chat_has_the_views_sessions_and_model_commands_of_the_app(scripted_server, tmp_path):
    home = tmp_path / "home"
    scripted_server.enqueue(
        Reply.text("first answer"),
        Reply.tool_calls(
            [
                ("todo", {"todos": [{"id": "1", "content": "write the schema", "status": "in_progress"}]}),
                ("memory", {"action": "add", "target": "user", "content": "Prefers tabs."}),
            ]
        ),
        Reply.text("noted"),
        Reply.text("answer from the other model"),
    )
    assert hermeslite(["-p", "an earlier session", *model_args(scripted_server)], home, tmp_path).returncode == 0
    earlier = sessions_db(home).latest_session_id()
    done = hermeslite(
        [*model_args(scripted_server)],
        home,
        tmp_path,
        input=(
            "remember things\n/todo\n/memory\n/context\n/sessions\n/model\n/model openai/other-model\nand now?\n"
            f"/new\n/resume\n/resume {earlier}\n/quit\n"
        ),
    )
    assert done.returncode == 0, done.stderr
    out, err = done.stdout, done.stderr
    assert "write the schema (in_progress)" in out  # /todo
    assert "USER.md (about you)" in out and "• Prefers tabs." in out  # /memory
    assert "system prompt" in out and "compaction at" in out and "threshold" in out  # /context
    assert "  project instructions" in out  # its row, 0 tokens here: no AGENTS.md
    assert out.count(earlier) >= 2  # /sessions, then /resume's list
    assert "Model openai/test-model · window" in err  # /model
    assert "Switched to openai/other-model: window" in err
    assert scripted_server.requests[-1]["model"] == "other-model"  # the next turn used it
    switched = next(s for s in sessions_db(home).list_sessions() if s.title and s.title.startswith("remember"))
    assert switched.model == "openai/other-model"  # recorded for --continue
    assert re.search(r"^New session \S+\.$", err, re.M)  # /new
    assert out.count("/resume <id prefix> opens one") == 2  # /sessions and /resume list them
    assert (
        f"Resumed session {earlier}. It was recorded with openai/test-model and goes on with openai/other-model"
    ) in err
    assert "Traceback" not in err
