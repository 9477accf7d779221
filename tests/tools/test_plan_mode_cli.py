"""Plan mode through the real process, loop, litellm and sandbox: `hermeslite --mode plan -p ...`.

The scripted model is obedient: each `RUN: cmd` line of the prompt becomes a terminal call and
each `WRITE: path` a write_file call, all in one reply; a tool result makes it answer. The user
is a scratch user outside the system temp dir (tests/tools/kernel_scratch.py), so a write that
escaped into the home or the temp dir would show on the disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermeslite.agent.modes import PLAN_LINE
from hermeslite.tools.landlock import abi_version
from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.envelope import sent_tool_results
from tests.server import Reply, ScriptedServer
from tests.tools.kernel_scratch import Home

pytestmark = pytest.mark.skipif(abi_version() < 1, reason="plan mode needs Landlock")


def obedient(body: dict[str, Any]) -> Reply:
    """Does what the user's last message says, all at once; answers once the tools have run."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return Reply.text("Plan: 1. create x. 2. write y. 3. write z.txt.")
    text = last["content"] if isinstance(last["content"], str) else json.dumps(last["content"])
    calls: list[tuple[str, dict[str, Any]]] = []
    for line in text.splitlines():
        if line.startswith("RUN: "):
            calls.append(("terminal", {"command": line.removeprefix("RUN: ")}))
        elif line.startswith("WRITE: "):
            calls.append(("write_file", {"path": line.removeprefix("WRITE: "), "content": "changed\n"}))
    return Reply.tool_calls(calls) if calls else Reply.text("ok")


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run_plan(server: ScriptedServer, home: Home, prompt: str, *extra: str):
    data = home.base / "hermeslite-home"  # hermeslite's own files: outside the user's home and project
    server.responder = obedient
    return hermeslite(["--mode", "plan", *extra, *model_args(server), "-p", prompt], data, home.proj)


def test_nothing_a_plan_mode_turn_runs_or_calls_changes_the_disk(scripted_server, outside):
    (outside.proj / "keep.py").write_text("print('unchanged')\n")
    before = {name: files_under(root) for name, root in (("home", outside.home), ("tmp", outside.tmp))}
    prompt = "\n".join(
        [
            "RUN: touch x",
            'RUN: python3 -c \'open("y","w")\'',
            "WRITE: z.txt",
            f"RUN: echo hi > {outside.home}/h.txt; touch {outside.tmp}/t; sed -i s/unchanged/changed/ keep.py",
            "RUN: touch $TMPDIR/scratch-ok && echo scratch-writable",
        ]
    )

    done = run_plan(scripted_server, outside, prompt)

    assert done.returncode == 0, done.stderr
    after = {name: files_under(root) for name, root in (("home", outside.home), ("tmp", outside.tmp))}
    assert after == before  # the project, the home and the temp dir byte for byte; the scratch dir is gone
    assert not list(outside.tmp.glob("hermeslite-plan-*"))
    results = sent_tool_results(scripted_server)
    touch, python, write, escape, scratch = results
    for refused in (touch, python, escape):
        assert "plan mode: commands may write nothing but the scratch dir" in refused
    assert "write_file is not available in plan mode" in write and "describe the change in your plan" in write
    assert "scratch-writable" in scratch  # the one writable place works, so commands needing a temp file run
    first = scripted_server.requests[0]
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert "terminal" in offered and "read_file" in offered
    assert not offered & {"write_file", "patch"}
    assert first["messages"][0]["content"].endswith(PLAN_LINE)


def test_the_mode_is_kept_with_the_session_and_continue_goes_on_in_plan_mode(scripted_server, outside):
    data = outside.base / "hermeslite-home"
    first = run_plan(scripted_server, outside, "hello")
    assert first.returncode == 0, first.stderr
    scripted_server.responder = obedient
    again = hermeslite([*model_args(scripted_server), "--continue", "-p", "RUN: touch x"], data, outside.proj)

    assert again.returncode == 0, again.stderr
    assert not (outside.proj / "x").exists()
    assert "plan mode" in sent_tool_results(scripted_server)[-1]
    with sessions_db(data) as store:
        sid = store.latest_session_id()
        assert sid is not None and store.load_mode(sid) == "plan"
    back = hermeslite(
        ["--mode", "default", *model_args(scripted_server), "--continue", "-p", "RUN: touch x"], data, outside.proj
    )
    assert back.returncode == 0, back.stderr
    assert (outside.proj / "x").exists()  # out of plan mode the same command writes


def test_plan_mode_is_refused_in_one_line_where_there_is_no_kernel_sandbox(scripted_server, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("tools:\n  sandbox: off\n")
    done = hermeslite(
        ["--config", str(config), "--mode", "plan", *model_args(scripted_server), "-p", "RUN: touch x"],
        tmp_path / "home",
        tmp_path,
        env=env_for(tmp_path / "home"),
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "hermeslite: plan mode refused: it needs the kernel sandbox (Landlock on Linux) to keep every command "
        "from writing, and commands here run without it (sandbox off (tools.sandbox: off): terminal commands can "
        "write anywhere you can and reach the network; only the approval policy guards them)"
    ]
    assert scripted_server.requests == [] and not (tmp_path / "x").exists()


def test_mode_is_not_read_as_model_and_takes_only_the_three_names(scripted_server, tmp_path):
    done = hermeslite(["--mode", "read-only", *model_args(scripted_server), "-p", "hi"], tmp_path / "h", tmp_path)
    assert done.returncode == 2 and "invalid choice: 'read-only'" in done.stderr


def test_the_line_chat_switches_modes_and_context_shows_the_mode(scripted_server, tmp_path):
    lines = "/mode\n/mode plan\n/context\n/mode bogus\n/mode accept_edits\n"
    done = hermeslite([*model_args(scripted_server)], tmp_path / "home", tmp_path, input=lines)

    assert done.returncode == 1  # a failed command (the unknown mode) makes the chat exit 1
    assert "Mode: default (" in done.stderr and "Mode: plan (read-only" in done.stderr
    assert "unknown mode 'bogus'; choose one of default, accept-edits, plan" in done.stderr
    assert "Mode: accept-edits (" in done.stderr
    assert "Mode: plan" in done.stdout  # /context, on stdout
