"""What `hermeslite` writes to a terminal or a pipe: real processes, real pipes, the scripted server."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.hostile_text import HOSTILE_COMMAND, HOSTILE_FILE, HOSTILE_REPLY, is_control
from tests.server import Reply


def test_escape_sequences_are_shown_not_obeyed_and_the_transcript_keeps_them(scripted_server, tmp_path):
    home = tmp_path / "home"
    (tmp_path / "notes.txt").write_text(HOSTILE_FILE, encoding="utf-8")
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": HOSTILE_COMMAND}), ("read_file", {"path": "notes.txt"})]),
        Reply.text(HOSTILE_REPLY, chunks=5),
    )
    done = hermeslite(["-p", "show me", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert not [c for c in done.stdout + done.stderr if is_control(c)]
    assert done.stdout == ("title␛]0;pwned␇ clipboard␛]52;c;cm0gLXJmIH4=␇ clear␛[2J␛[H query␛[6n c1\\x9b31m end\n")
    assert "» terminal: printf '␛]0;from-tool␇ ␛]52;c;aGk=␇ ␛[6n done\\n'" in done.stderr
    assert "␛]0;from-file␇ ␛]52;c;aGk=␇ ␛[6n done" in done.stderr  # the read_file preview
    store = sessions_db(home)
    transcript = store.load_transcript(store.latest_session_id())
    assert transcript[-1] == {"role": "assistant", "content": HOSTILE_REPLY}
    command_output, file_output = (m["content"] for m in transcript if m["role"] == "tool")
    assert "\x1b]0;from-tool\x07 \x1b]52;c;aGk=\x07 \x1b[6n done" in command_output
    assert "\x1b]0;from-file\x07 \x1b]52;c;aGk=\x07 \x1b[6n done" in file_output


LONG_REPLY = "".join(f"line {n} of a reply far longer than a pipe holds\n" for n in range(8_000))  # ~400 kB


def hermeslite_into_pipe(args: list[str], home, cwd, *, stderr, closed_stderr: bool = False, stdin: bytes = b""):
    """Start hermeslite writing into a pipe we read 100 bytes from and then close, like `| head -c 100`."""
    command = [sys.executable, "-m", "hermeslite", *args]
    if closed_stderr:  # as `2>&-` in a shell
        command = ["bash", "-c", 'exec 2>&-; exec "$@"', "bash", *command]
    proc = subprocess.Popen(
        command, cwd=cwd, env=env_for(home), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
    )
    proc.stdin.write(stdin)
    proc.stdin.close()
    head = proc.stdout.read(100)
    proc.stdout.close()
    return proc.wait(timeout=120), head


def saved_transcript(home) -> list[dict]:
    store = sessions_db(home)
    return store.load_transcript(store.latest_session_id())


def test_a_reader_that_goes_away_ends_the_run_quietly(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text(LONG_REPLY, chunks=400))
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as err:
        code, head = hermeslite_into_pipe(
            ["-p", "long", *model_args(scripted_server)], tmp_path / "home", tmp_path, stderr=err
        )
    assert head == LONG_REPLY[:100].encode()
    assert code == 141, "the exit status of a tool ended by SIGPIPE"
    noted = errors.read_text()
    assert "Traceback" not in noted and "Exception" not in noted and "Broken pipe" not in noted, noted
    assert saved_transcript(tmp_path / "home")[-1] == {"role": "assistant", "content": LONG_REPLY}, "the reply is saved"


def test_stdout_and_stderr_on_the_same_closed_pipe(scripted_server, tmp_path):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "echo step"})]), Reply.text(LONG_REPLY, chunks=400)
    )
    code, head = hermeslite_into_pipe(
        ["-p", "long", *model_args(scripted_server)], tmp_path / "home", tmp_path, stderr=subprocess.STDOUT
    )
    assert head.startswith("» terminal: echo step".encode())
    assert code == 141
    saved = saved_transcript(tmp_path / "home")
    assert "step" in saved[-2]["content"], "the turn went on: the tool ran"
    assert saved[-1] == {"role": "assistant", "content": LONG_REPLY}


def test_a_reader_gone_in_the_line_chat_saves_the_turn_and_starts_no_other(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text(LONG_REPLY, chunks=400), Reply.text("never asked for"))
    code, head = hermeslite_into_pipe(
        model_args(scripted_server), tmp_path / "home", tmp_path, stderr=subprocess.DEVNULL, stdin=b"first\nsecond\n"
    )
    assert (code, head) == (141, LONG_REPLY[:100].encode())
    saved = saved_transcript(tmp_path / "home")
    assert [m["content"] for m in saved if m["role"] == "user"] == ["first"]
    assert saved[-1] == {"role": "assistant", "content": LONG_REPLY}
    assert scripted_server.pending == 1


def test_a_closed_stderr_still_gives_the_answer_and_a_sound_database(scripted_server, tmp_path):
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "echo step"})]), Reply.text("the answer"))
    done = subprocess.run(
        [
            "bash",
            "-c",
            'exec 2>&-; exec "$@"',
            "bash",
            sys.executable,
            "-m",
            "hermeslite",
            "-p",
            "go",
            *model_args(scripted_server),
        ],
        cwd=tmp_path,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, "the answer\n")
    store = sessions_db(home)
    assert store.load_transcript(store.latest_session_id())[-1] == {"role": "assistant", "content": "the answer"}
    with sqlite3.connect(home / "data" / "sessions.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    scripted_server.enqueue(Reply.text(LONG_REPLY, chunks=400))
    code, head = hermeslite_into_pipe(
        ["-p", "long", *model_args(scripted_server)], home, tmp_path, stderr=None, closed_stderr=True
    )
    assert (code, head) == (141, LONG_REPLY[:100].encode())
