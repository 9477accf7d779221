"""What a `-p` run sends: piped stdin, `-p -`, empty prompts, bytes that are not UTF-8, and Ctrl-C.

Real processes against the scripted server: what the server received is what a provider would.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.server import Reply


def last_user_text(server) -> str:
    return server.requests[-1]["messages"][-1]["content"]


def test_text_piped_into_stdin_is_sent_after_the_prompt(scripted_server, tmp_path):
    done = hermeslite(
        ["-p", "review this diff", *model_args(scripted_server)], tmp_path / "home", tmp_path, input="+added line\n"
    )
    assert done.returncode == 0, done.stderr
    assert last_user_text(scripted_server) == "review this diff\n\n+added line\n"


def test_dash_reads_the_whole_prompt_from_stdin_even_past_the_argument_size_limit(scripted_server, tmp_path):
    huge = "word " * 40_000 + "the end"  # 200 kB: more than one command-line argument may hold (128 kB)
    done = hermeslite(["-p", "-", *model_args(scripted_server)], tmp_path / "home", tmp_path, input=huge)
    assert done.returncode == 0, done.stderr
    assert last_user_text(scripted_server) == huge


def test_an_empty_prompt_is_a_usage_error_and_sends_nothing(scripted_server, tmp_path):
    home = tmp_path / "home"
    for args, stdin, said in (
        (
            ["-p", ""],
            subprocess.DEVNULL,
            "hermeslite: -p needs a prompt: the text given is empty and nothing was piped in\n",
        ),
        (["-p", "  "], "\n\n", "hermeslite: -p needs a prompt: the text given is empty and so is stdin\n"),
        (["-p", "-"], "", "hermeslite: -p - reads the prompt from stdin, and stdin was empty\n"),
    ):
        kw = {"stdin": stdin} if stdin is subprocess.DEVNULL else {"input": stdin}
        done = hermeslite([*args, *model_args(scripted_server)], home, tmp_path, **kw)
        assert (done.returncode, done.stderr, done.stdout) == (2, said, ""), args
    assert scripted_server.requests == []
    assert sessions_db(home).latest_session_id() is None


def test_bytes_that_are_not_utf8_are_sent_as_replacement_characters_with_a_warning(scripted_server, tmp_path):
    home = tmp_path / "home"
    command = [sys.executable, "-m", "hermeslite", "-p", b"caf\xe9", *model_args(scripted_server)]
    done = subprocess.run(
        command, cwd=tmp_path, env=env_for(home), input=b"na\xefve\n", capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines() == [
        "hermeslite: warning: the -p prompt is not UTF-8 text (byte 0xe9 at offset 3); each bad byte is sent as U+FFFD",
        "hermeslite: warning: stdin is not UTF-8 text (byte 0xef at offset 2); each bad byte is sent as U+FFFD",
    ]
    assert last_user_text(scripted_server) == "caf\ufffd\n\nna\ufffdve\n"
    store = sessions_db(home)
    assert store.load_transcript(store.latest_session_id())[1]["content"] == "caf\ufffd\n\nna\ufffdve\n"


def test_the_line_chat_warns_about_a_line_that_is_not_utf8_and_sends_the_rest(scripted_server, tmp_path):
    command = [sys.executable, "-m", "hermeslite", *model_args(scripted_server)]
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=env_for(tmp_path / "home"),
        input=b"hello\ncaf\xe9 au lait\n",
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert b"hermeslite: warning: line 2 of stdin is not UTF-8 text (byte 0xe9 at offset 3)" in done.stderr
    assert last_user_text(scripted_server) == "caf\ufffd au lait"


def test_ctrl_c_during_a_one_shot_run_exits_130(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.delay(60, Reply.text("too late")))
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermeslite", "-p", "take your time", *model_args(scripted_server)],
        cwd=tmp_path,
        env=env_for(tmp_path / "home"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As a shell starts a foreground command: SIGINT not ignored, whatever the test runner inherited.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not scripted_server.requests:
        assert time.monotonic() < deadline, "the request never arrived"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, "", "(cancelled)\n")


def test_ctrl_c_while_the_line_chat_waits_for_a_line_ends_it_at_once(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("answered"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermeslite", *model_args(scripted_server)],
        cwd=tmp_path,
        env=env_for(tmp_path / "home"),
        stdin=subprocess.PIPE,  # kept open: the chat waits for the next line
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        proc.stdin.write("hello\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "answered\n"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130
    finally:
        proc.kill()
        proc.communicate()
    assert sessions_db(tmp_path / "home").latest_session_id() is not None, "the answered turn stays saved"
