"""Hooks in `hermeslite` run as a user runs it: `-p`, the line chat, a project file and `hermeslite trust`."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from tests.cli_process import env_for, hermeslite, model_args
from tests.envelope import sent_tool_results
from tests.hook_scripts import live_in_group, on, script
from tests.server import Reply, ScriptedServer


def user_config(home: Path, hooks: dict) -> None:
    path = home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"hooks": hooks}), encoding="utf-8")


def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(HERMESLITE_HOME, the project folder the command runs in, a folder for hook scripts)."""
    project = tmp_path / "project"
    project.mkdir()
    return tmp_path / "home", project, tmp_path / "hooks"


def tool_results(server: ScriptedServer) -> list[str]:
    return sent_tool_results(server)


def test_p_a_blocking_hook_stops_the_command_and_the_model_reads_why(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    block = script(hooks, "block.sh", 'grep -q "touch" && { echo "no new files here" >&2; exit 2; }; exit 0')
    user_config(home, on("PreToolUse", block, matcher="terminal"))
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "touch made.txt"})]), Reply.text("I could not make it.")
    )
    done = hermeslite(["-p", "make a file", *model_args(scripted_server)], home, project)
    assert done.returncode == 0, done.stderr
    assert not (project / "made.txt").exists()
    assert tool_results(scripted_server) == ["error: blocked by a PreToolUse hook: no new files here"]
    assert "✗ error: blocked by a PreToolUse hook: no new files here" in done.stderr
    assert done.stdout == "I could not make it.\n"


def test_p_a_failing_hook_is_one_line_and_the_command_runs(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    broken = script(hooks, "broken.sh", 'echo "cannot find my rules file" >&2; exit 1')
    user_config(home, on("PreToolUse", broken))
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "touch made.txt"})]), Reply.text("done"))
    done = hermeslite(["-p", "make a file", *model_args(scripted_server)], home, project)
    assert done.returncode == 0, done.stderr
    assert (project / "made.txt").exists()
    line = f"note: PreToolUse hook `{broken}`: exited with 1: cannot find my rules file; the terminal call goes on"
    assert done.stderr.count(line) == 1


def test_p_a_blocked_prompt_exits_1_and_says_why(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    user_config(home, on("UserPromptSubmit", script(hooks, "no.sh", 'echo "not on Fridays" >&2; exit 2')))
    done = hermeslite(["-p", "deploy", *model_args(scripted_server)], home, project)
    assert done.returncode == 1
    assert "note: A UserPromptSubmit hook blocked this prompt: not on Fridays" in done.stderr
    assert scripted_server.requests == []


def test_project_hooks_run_only_once_the_folder_is_trusted(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    block = script(hooks, "block.sh", 'echo "the project says no" >&2; exit 2')
    (project / "hermeslite.yaml").write_text(
        yaml.safe_dump({"hooks": on("PreToolUse", block, matcher="terminal")}), encoding="utf-8"
    )
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "touch before.txt"})]),
        Reply.text("made it"),
        Reply.tool_calls([("terminal", {"command": "touch after.txt"})]),
        Reply.text("could not"),
    )
    untrusted = hermeslite(["-p", "make a file", *model_args(scripted_server)], home, project)
    assert untrusted.returncode == 0, untrusted.stderr
    assert (
        "hermeslite: warning: ignored hooks from ./hermeslite.yaml: this folder is not trusted; "
        "run `hermeslite trust` to use them"
    ) in untrusted.stderr
    assert (project / "before.txt").exists(), "an untrusted project's hook does not run"

    trusted = hermeslite(["trust"], home, project)
    assert trusted.returncode == 0, trusted.stderr
    assert f"from now on it sets hooks: (PreToolUse (terminal): {block})" in trusted.stdout

    after = hermeslite(["-p", "make another", *model_args(scripted_server)], home, project)
    assert after.returncode == 0, after.stderr
    assert "ignored hooks" not in after.stderr
    assert not (project / "after.txt").exists()
    assert tool_results(scripted_server)[-1] == "error: blocked by a PreToolUse hook: the project says no"


def test_your_own_hooks_run_beside_a_project_file(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    user_config(home, on("UserPromptSubmit", script(hooks, "mine.sh", "echo 'from my own config'")))
    (project / "hermeslite.yaml").write_text("compression:\n  threshold: 0.6\n", encoding="utf-8")
    scripted_server.enqueue(Reply.text("ok"))
    done = hermeslite(["-p", "hello", *model_args(scripted_server)], home, project)
    assert done.returncode == 0, done.stderr
    user = [m["content"] for m in scripted_server.requests[0]["messages"] if m["role"] == "user"]
    assert user == ["hello\n\n[from a UserPromptSubmit hook]\nfrom my own config"]
    shown = hermeslite(["config"], home, project)
    laid_over = (
        f"# laid over {home / 'config' / 'config.yaml'}: the project's keys win; hooks from both run, yours first"
    )
    assert laid_over in shown.stdout


def test_line_chat_a_pre_compact_hook_stops_compress(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    user_config(home, on("PreCompact", script(hooks, "keep.sh", 'echo "keep everything while I debug" >&2; exit 2')))
    scripted_server.enqueue(Reply.text("hi there"))
    done = hermeslite([*model_args(scripted_server)], home, project, input="hello\n/compress the parser\n")
    assert done.returncode == 1, "a /compress that did not happen is a failed command"
    assert "note: A PreCompact hook stopped the manual compaction: keep everything while I debug" in done.stderr
    assert len(scripted_server.requests) == 1, "no summary was asked for"


def test_line_chat_a_blocked_prompt_is_one_line_and_the_chat_goes_on(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    guard = script(hooks, "guard.sh", 'grep -q secret && { echo "that looks like a secret" >&2; exit 2; }; exit 0')
    user_config(home, on("UserPromptSubmit", guard))
    scripted_server.enqueue(Reply.text("answered"))
    done = hermeslite([*model_args(scripted_server)], home, project, input="my secret is x\nwhat is 2+2?\n")
    assert done.returncode == 1, "a blocked prompt is a turn without an answer"
    assert done.stderr.count("A UserPromptSubmit hook blocked this prompt: that looks like a secret") == 1
    assert done.stdout == "answered\n"
    sent = [m["content"] for m in scripted_server.requests[0]["messages"] if m["role"] == "user"]
    assert sent == ["what is 2+2?"]


def test_line_chat_a_blocking_hook_stops_the_command(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    user_config(home, on("PreToolUse", script(hooks, "block.sh", 'echo "read-only session" >&2; exit 2')))
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "touch made.txt"})]), Reply.text("blocked"))
    done = hermeslite([*model_args(scripted_server)], home, project, input="make a file\n")
    assert done.returncode == 0, done.stderr
    assert not (project / "made.txt").exists()
    assert tool_results(scripted_server) == ["error: blocked by a PreToolUse hook: read-only session"]


def test_a_running_hook_dies_with_hermeslite(scripted_server, tmp_path):
    home, project, hooks = places(tmp_path)
    pgid_file = hooks / "pgid"
    slow = script(hooks, "slow.sh", f'echo $$ > "{pgid_file}.new" && mv "{pgid_file}.new" "{pgid_file}"; sleep 300')
    user_config(home, on("UserPromptSubmit", slow, timeout=600))
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermeslite", "-p", "hello", *model_args(scripted_server)],
        cwd=project,
        env=env_for(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not pgid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pgid_file.exists(), "the hook never started"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM
    assert live_in_group(int(pgid_file.read_text())) == []
