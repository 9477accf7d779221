"""File checkpoints as a user meets them: `-p` runs that edit files, then /rewind and /diff piped into
the line chat of the same session; and a machine without git, where one line says so and the run goes on."""

from __future__ import annotations

import os
import sys

from tests.checkpoint_files import dir_hash, git_project, tree_state
from tests.cli_process import env_for, hermeslite, model_args
from tests.server import Reply


def write_call(path: str, content: str) -> Reply:
    return Reply.tool_calls([("write_file", {"path": path, "content": content})])


def test_edits_by_p_runs_are_rewound_from_the_piped_line_chat(scripted_server, tmp_path):
    home, project = tmp_path / "home", git_project(tmp_path / "repo")
    git_before, start = dir_hash(project / ".git"), tree_state(project)
    args = model_args(scripted_server)
    scripted_server.enqueue(write_call("notes.txt", "first\n"), Reply.text("one"))
    assert hermeslite(["-p", "edit notes", *args], home, project).returncode == 0
    scripted_server.enqueue(write_call("src/new.py", "x = 1\n"), Reply.text("two"))
    assert hermeslite(["-p", "add a module", "--continue", *args], home, project).returncode == 0

    done = hermeslite(["--continue", *args], home, project, input="/rewind\n/diff 2\n/rewind 1 code\n")
    assert done.returncode == 0, done.stderr
    assert "edit notes" in done.stdout and "add a module" in done.stdout  # the list
    assert "+++ b/src/new.py" in done.stdout and "\x1b[" not in done.stdout  # the diff, plain in a pipe
    assert "Rewound to before turn 1: files: 1 written back, 1 deleted." in done.stderr
    assert tree_state(project) == start
    assert dir_hash(project / ".git") == git_before


def test_without_git_one_line_says_checkpoints_are_off_and_the_run_goes_on(scripted_server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    env = {**env_for(tmp_path / "home"), "PATH": os.path.dirname(sys.executable)}
    scripted_server.enqueue(write_call("a.txt", "a\n"), write_call("b.txt", "b\n"), Reply.text("written"))
    done = hermeslite(["-p", "write two files", *model_args(scripted_server)], tmp_path / "home", project, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "written"
    off = [line for line in done.stderr.splitlines() if "checkpoints are off" in line]
    assert off == [
        "note: File checkpoints are off: git is not installed. /rewind can still take back the conversation."
    ], done.stderr
    assert (project / "a.txt").read_text() == "a\n" and (project / "b.txt").read_text() == "b\n"
