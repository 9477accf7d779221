"""The line chat typed at a terminal asks before an edit under `tools.edits: ask`, as the TUI does:
the diff first, then y (once), a (every edit for the session) or n. A real process whose stdin is a
pty (stdout a pipe, so it is the line chat and not the TUI); answers are typed only once the
question is on stderr."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
import time

from hermeslite.line_approval import QUESTION
from tests.cli_process import env_for, model_args
from tests.envelope import sent_tool_results
from tests.patience import patience
from tests.server import Reply

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 11))


class Stderr:
    """Everything the process wrote to stderr so far, read by a thread."""

    def __init__(self, stream) -> None:
        self.text = ""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream) -> None:
        for chunk in iter(lambda: os.read(stream.fileno(), 4096), b""):
            with self._lock:
                self.text += chunk.decode("utf-8", errors="replace")

    def wait_for(self, needle: str, count: int = 1) -> str:
        deadline = time.monotonic() + patience(60)
        while time.monotonic() < deadline:
            with self._lock:
                if self.text.count(needle) >= count:
                    return self.text
            time.sleep(0.05)
        raise AssertionError(f"never saw {needle!r} x{count} in stderr:\n{self.text}")


def test_a_terminal_line_chat_shows_the_diff_and_asks_yes_no_or_for_the_session(scripted_server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text(ORIGINAL)
    config = tmp_path / "config.yaml"
    config.write_text("tools:\n  edits: ask\n")
    scripted_server.enqueue(
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "line 3\n", "new": "line three\n"})]),
        Reply.tool_calls([("write_file", {"path": "first.txt", "content": "one\n"})]),
        Reply.tool_calls([("write_file", {"path": "second.txt", "content": "two\n"})]),
        Reply.text("edits done"),
    )
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "hermeslite", "--config", str(config), *model_args(scripted_server)],
        cwd=project,
        env=env_for(tmp_path / "home"),
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    stderr = Stderr(process.stderr)
    try:
        stderr.wait_for("> ")
        os.write(master, b"make the edits\n")
        asked = stderr.wait_for(QUESTION)
        assert "⚠ This patch call needs your approval" in asked
        assert "-line 3" in asked and "+line three" in asked  # the diff, before anything is written
        assert (project / "notes.txt").read_text() == ORIGINAL
        os.write(master, b"n\n")

        asked = stderr.wait_for(QUESTION, 2)
        assert "+one" in asked.rsplit("needs your approval", 1)[1]
        os.write(master, b"a\n")  # every edit for the rest of the session

        stderr.wait_for("> ", 2)  # the turn ended: the third edit was not asked about
        os.write(master, b"/quit\n")
        stdout, _ = process.communicate(timeout=patience(60))
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert process.returncode == 0, stderr.text
    assert stderr.text.count(QUESTION) == 2
    assert b"edits done" in stdout
    assert (project / "notes.txt").read_text() == ORIGINAL  # denied
    assert (project / "first.txt").read_text() == "one\n" and (project / "second.txt").read_text() == "two\n"
    denied, first, second = sent_tool_results(scripted_server)
    assert "the user denied this edit" in denied
    assert not first.startswith("error") and not second.startswith("error")
