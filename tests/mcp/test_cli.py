"""`hermeslite mcp list|add|remove`, trust for a project's servers, and hermeslite as a user runs it
with MCP servers: `-p` and the line chat as real processes, and no server left after a `kill -9`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from hermeslite import paths
from hermeslite.cli import main
from hermeslite.config import load_settings
from tests.cli_process import env_for, hermeslite, model_args
from tests.envelope import unwrapped
from tests.mcp.test_servers import alive
from tests.mcp_servers import stdio_entry
from tests.server import Reply

USER_CONFIG = """\
# my settings
model:
  name: openai/gpt-4o  # the one I pay for

# servers
mcp_servers:
  time:
    command: mcp-server-time

tools:
  approval: ask
"""


def user_config(text: str) -> Path:
    path = paths.config_dir() / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_add_and_remove_edit_one_entry_and_keep_the_rest_of_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = user_config(USER_CONFIG)
    argv = ["mcp", "add", "github", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN}", "--approve", "get_*"]
    assert main([*argv, "--", "npx", "-y", "@modelcontextprotocol/server-github"]) == 0
    assert main(["mcp", "add", "docs", "--url", "https://mcp.example.com/mcp", "-H", "Authorization: Bearer ${T}"]) == 0
    out = capsys.readouterr().out
    assert f"added MCP server github to {path}" in out and "note: GITHUB_TOKEN is not set in this shell" in out
    text = path.read_text()
    assert text.startswith(USER_CONFIG.split("tools:")[0].rstrip("\n"))  # comments and order kept
    assert "# the one I pay for" in text and text.rstrip().endswith("approval: ask")
    servers = load_settings().settings.mcp_servers
    assert list(servers) == ["time", "github", "docs"]
    assert servers["github"].args == ["-y", "@modelcontextprotocol/server-github"]
    assert servers["github"].env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}  # kept unexpanded
    assert servers["github"].approved_tools == ["get_*"]
    assert servers["docs"].headers == {"Authorization": "Bearer ${T}"}

    assert main(["mcp", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0] == f"MCP servers in {path}:"
    assert listed[2].split() == ["github", "stdio", "npx", "-y", "@modelcontextprotocol/server-github"]
    assert main(["mcp", "remove", "github"]) == 0
    assert main(["mcp", "remove", "docs"]) == 0
    assert path.read_text() == USER_CONFIG


def test_add_refuses_what_would_break_the_file_and_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    path = user_config(USER_CONFIG)
    assert main(["mcp", "add", "time", "--", "other"]) == 1
    assert main(["mcp", "add", "two__parts", "--", "x"]) == 1
    assert main(["mcp", "add", "both", "--url", "https://x.example", "--", "x"]) == 2
    assert main(["mcp", "add", "neither"]) == 2
    assert main(["mcp", "remove", "absent"]) == 1
    errors = capsys.readouterr().err.splitlines()
    assert errors == [
        f"hermeslite: cannot add time to {path}: mcp_servers.time is already there",
        f"hermeslite: {path}: mcp_servers.two__parts: a server name is 1 to 32 letters, digits, - or _ (no __), "
        "starting with a letter or digit (nothing was written)",
        "hermeslite: a server has a program (after --) or a --url, not both",
        "hermeslite: give the server's program after -- (stdio), or --url URL (streamable HTTP)",
        f"hermeslite: cannot remove absent from {path}: there is no mcp_servers.absent",
    ]
    assert path.read_text() == USER_CONFIG


def test_a_project_files_servers_wait_for_trust_with_one_line(workdir: Path, capsys) -> None:
    (workdir / "hermeslite.yaml").write_text(yaml.safe_dump({"mcp_servers": {"evil": {"command": "/bin/true"}}}))
    loaded = load_settings()
    assert loaded.settings.mcp_servers == {} and loaded.ignored == ["mcp_servers"]
    assert loaded.warnings == [
        "ignored mcp_servers (evil) from ./hermeslite.yaml: this folder is not trusted; "
        "run `hermeslite trust` to use them"
    ]
    assert main(["trust"]) == 0
    assert "from now on it sets mcp_servers: evil" in capsys.readouterr().out
    assert list(load_settings().settings.mcp_servers) == ["evil"]


def test_a_bad_entry_is_a_config_error_naming_the_key(workdir: Path, capsys) -> None:
    path = user_config("mcp_servers:\n  x:\n    command: a\n    timeout: 0\n")
    assert main(["mcp", "list"]) == 2
    assert capsys.readouterr().err == (
        f"hermeslite: {path}: mcp_servers.x.timeout must be between 1 and 86,400, got 0\n"
    )
    user_config("mcp_servers:\n  x:\n    command: a\n    url: https://b.example\n    colour: red\n")
    assert main(["mcp", "list"]) == 2
    assert capsys.readouterr().err == (
        f"hermeslite: {path}: mcp_servers.x: give either command: (a program spoken to over stdio) or url: "
        "(streamable HTTP), not both\n"
    )
    user_config("mcp_servers:\n  x:\n    command: a\n    colour: red\n")
    assert main(["mcp", "list"]) == 0
    assert capsys.readouterr().err == f"hermeslite: warning: {path}: unknown key mcp_servers.x.colour\n"


def started(server, home: Path, cwd: Path, *extra: str, stdin: int) -> subprocess.Popen:
    """hermeslite running in the background (a `-p` run reads piped stdin to its end: give it DEVNULL)."""
    return subprocess.Popen(
        [sys.executable, "-m", "hermeslite", *model_args(server), *extra],
        cwd=cwd,
        env=env_for(home),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def write_home_config(home: Path, servers: dict) -> None:
    path = home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"mcp_servers": servers}))


def test_a_prompt_run_waits_for_its_servers_calls_one_and_ends_them(scripted_server, home, workdir, tmp_path):
    pids = tmp_path / "pids"
    write_home_config(home, {"t": stdio_entry("--children", str(pids), approved_tools=["echo"])})
    scripted_server.enqueue(Reply.tool_calls([("mcp__t__echo", {"text": "from a real process"})]), Reply.text("done"))
    done = hermeslite(["-p", "echo it", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    assert "» mcp__t__echo: text=from a real process" in done.stderr
    assert unwrapped(scripted_server.requests[1]["messages"][-1]["content"]) == "from a real process"
    assert not [pid for pid in map(int, pids.read_text().split()) if alive(pid)]


def test_a_prompt_run_that_names_a_server_prompt_sends_its_text(scripted_server, home, workdir):
    write_home_config(home, {"t": stdio_entry()})
    done = hermeslite(["-p", "/mcp__t__review lib.py style", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 0, done.stderr
    assert scripted_server.requests[0]["messages"][-1] == {
        "role": "user",
        "content": "Please review lib.py, looking for style.",
    }
    missing = hermeslite(["-p", "/mcp__t__review", *model_args(scripted_server)], home, workdir)
    assert missing.returncode == 1 and missing.stderr.endswith(
        "hermeslite: /mcp__t__review: path is required (<path> [focus])\n"
    )
    assert len(scripted_server.requests) == 1  # nothing was sent


def test_a_command_file_named_like_a_server_prompt_is_refused_in_one_line(scripted_server, home, workdir):
    """The servers' prompts join the commands once ready, after the start-up lines: a command file
    named mcp__... would hide one without a word, so it is refused when the files are read."""
    write_home_config(home, {"t": stdio_entry()})
    commands = workdir / ".hermeslite" / "commands"
    commands.mkdir(parents=True)
    (commands / "mcp__t__review.md").write_text("My own review of $ARGUMENTS\n")
    done = hermeslite(["-p", "/mcp__t__review lib.py", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 0, done.stderr
    assert (
        "hermeslite: warning: custom command .hermeslite/commands/mcp__t__review.md is skipped: "
        "names starting with mcp__ are the MCP servers' prompts\n"
    ) in done.stderr
    assert scripted_server.requests[0]["messages"][-1]["content"] == "Please review lib.py, looking for bugs."


def test_the_line_chat_shows_the_servers_restarts_one_and_sends_a_prompt(scripted_server, home, workdir):
    write_home_config(home, {"t": stdio_entry(), "nope": {"command": "no-such-mcp-program"}})
    lines = "hello\n/mcp\n/mcp restart t\n/mcp__t__review src/app.py\n/mcp restart nope\n"
    done = hermeslite(model_args(scripted_server), home, workdir, input=lines)
    assert done.returncode == 1  # the failed restart counts
    assert "note: MCP server nope failed: command not found: no-such-mcp-program" in done.stderr
    assert "✗ nope  failed  stdio: no-such-mcp-program" in done.stdout
    assert "● t  ready  stdio: " in done.stdout and "mcp__t__echo" in done.stdout
    assert "prompt /mcp__t__review <path> [focus]" in done.stdout
    assert "MCP server t restarted: 9 tools, offered from the next message." in done.stderr
    assert "MCP server nope failed again: command not found: no-such-mcp-program" in done.stderr
    assert scripted_server.requests[-1]["messages"][-1] == {
        "role": "user",
        "content": "Please review src/app.py, looking for bugs.",
    }


@pytest.mark.parametrize("mode", ["prompt", "line chat"])
def test_after_kill_9_of_hermeslite_no_server_process_is_left(scripted_server, home, workdir, tmp_path, mode):
    """A server that ignores its closed stdin and SIGTERM, with a child in its group and one in a
    session of its own: all of them end when hermeslite is killed with SIGKILL mid-turn."""
    pids = tmp_path / "pids"
    write_home_config(home, {"t": stdio_entry("--stubborn", "--children", str(pids))})
    scripted_server.enqueue(Reply.delay(600, Reply.text("never")))
    if mode == "prompt":
        process = started(scripted_server, home, workdir, "-p", "wait for me", stdin=subprocess.DEVNULL)
    else:
        process = started(scripted_server, home, workdir, stdin=subprocess.PIPE)
    try:
        if mode == "line chat":
            process.stdin.write("wait for me\n")
            process.stdin.flush()
        wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 3 and scripted_server.requests)
        spawned = [int(pid) for pid in pids.read_text().split()]
        assert all(alive(pid) for pid in spawned)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(30)
        wait_for(lambda: not any(alive(pid) for pid in spawned))
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    assert not any(alive(pid) for pid in spawned)


def wait_for(condition, seconds: float = 60.0) -> None:
    """Until `condition()` holds: processes starting or dying on a loaded machine."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.05)


def sdk_imports(stderr: str) -> list[str]:
    """The SDK's modules in `python -X importtime`'s report (on stderr)."""
    names = [line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")]
    return [name for name in names if name.split(".")[0] in ("mcp", "mcp_types", "httpx2")]


def test_the_sdk_is_imported_only_when_a_server_is_configured(scripted_server, home, workdir) -> None:
    """`--help` never imports it, nor does a `-p` run with no server; a run with one does (on the
    servers' thread)."""
    run = [sys.executable, "-X", "importtime", "-m", "hermeslite"]
    env = env_for(home)
    bare = subprocess.run(
        [*run, "-p", "hi", *model_args(scripted_server)], cwd=workdir, env=env, capture_output=True, text=True
    )
    assert bare.returncode == 0 and sdk_imports(bare.stderr) == []
    write_home_config(home, {"t": stdio_entry()})
    helped = subprocess.run([*run, "--help"], cwd=workdir, env=env, capture_output=True, text=True)
    assert helped.returncode == 0 and sdk_imports(helped.stderr) == []
    served = subprocess.run(
        [*run, "-p", "hi", *model_args(scripted_server)], cwd=workdir, env=env, capture_output=True, text=True
    )
    assert served.returncode == 0 and "mcp.client.session" in sdk_imports(served.stderr)
