"""Which runs leave a session behind, and `!command` in the line chat: real processes, real HTTP."""

from __future__ import annotations

from hermeslite.context.user_command import INTRO
from tests.cli_process import hermeslite, model_args, sessions_db
from tests.server import Reply


def test_a_failed_one_shot_keeps_no_session_and_continue_finds_the_one_before(scripted_server, tmp_path):
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.text("first answer"))
    assert hermeslite(["-p", "first", *model_args(scripted_server)], home, tmp_path).returncode == 0
    first = sessions_db(home).latest_session_id()
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided"))
    failed = hermeslite(["-p", "this one fails", *model_args(scripted_server)], home, tmp_path)
    assert failed.returncode == 1
    assert [s.id for s in sessions_db(home).list_sessions()] == [first]
    scripted_server.enqueue(Reply.text("continued"))
    again = hermeslite(["-p", "go on", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert again.returncode == 0, again.stderr
    sent = [m["content"] for m in scripted_server.requests[-1]["messages"] if m["role"] in ("user", "assistant")]
    assert sent == ["first", "first answer", "go on"]


def test_a_failed_turn_on_a_continued_session_keeps_it(scripted_server, tmp_path):
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.text("first answer"), Reply.error(401, "Incorrect API key provided"))
    assert hermeslite(["-p", "first", *model_args(scripted_server)], home, tmp_path).returncode == 0
    failed = hermeslite(["-p", "then this", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert failed.returncode == 1
    [info] = sessions_db(home).list_sessions()
    assert info.message_count == 5  # system, first, answer, then this, the failure note


def test_a_line_chat_without_a_message_keeps_no_session(scripted_server, tmp_path):
    home = tmp_path / "home"
    done = hermeslite([*model_args(scripted_server)], home, tmp_path, input="/help\n/new\n/quit\n")
    assert done.returncode == 0, done.stderr
    assert sessions_db(home).list_sessions() == []


def test_bang_in_the_line_chat_prints_the_output_and_the_model_sees_it(scripted_server, tmp_path):
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.text("I see the marker."))
    done = hermeslite(
        [*model_args(scripted_server)], home, tmp_path, input="!echo marker-$((6*7))\nwhat did it print?\n/quit\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["marker-42", "[exit code: 0]"]
    assert len(scripted_server.requests) == 1  # the command itself called no model
    command = scripted_server.requests[0]["messages"][-2]
    assert (
        command["role"] == "user"
        and command["content"]
        == f"{INTRO}\n$ echo marker-$((6*7))\n<tool_output>\nmarker-42\n[exit code: 0]\n</tool_output>"
    )
    [info] = sessions_db(home).list_sessions()
    assert info.title == "!echo marker-$((6*7))"
