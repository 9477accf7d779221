"""Real commands against a scratch home: what the modes and the kernel let through, checked on disk.

Every command below reached the user's home through the terminal tool before
the sandbox existed. Each runs here for real, in each mode, with `HOME` and the
boundary pointing at a scratch home; the test then compares the home with a
snapshot. In `allow` mode the same commands must change it, which proves the
commands (and so these tests) can do the damage they are checked against.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hermeslite.tools.base import deny_all
from hermeslite.tools.sandbox_notes import BLOCKED, BLOCKED_NOTE
from hermeslite.tools.terminal import TerminalTool
from tests.tools.helpers import alive, gone_within, needs_landlock

tool = TerminalTool()
PAYLOAD = base64.b64encode(b"rm -rf ~/x\n").decode()
ISSUE_COMMANDS = [
    "rm -rf ~/x",
    "rm -r ~/x",
    "rm -rf $HOME/x",
    'rm -rf "$HOME"/x',
    "rm -rf {home}/x",
    "cd ~ && rm -rf x",
    'bash -c "rm -rf ~/x"',
    "find ~/x -delete",
    "python3 -c \"import os, shutil; shutil.rmtree(os.path.expanduser('~/x'))\"",
    f"echo {PAYLOAD} | base64 -d | sh",
    ": > ~/notes.txt",
    "chmod -R 000 ~/x",
    # Landlock does not confine chmod: only the policy, following a link made in the same line, stops these.
    "ln -s ~/x h; chmod -R 000 h/",
    "ln -s ~ h && chmod 000 h/notes.txt",
    "script -qc 'chmod -R 000 ~/x' /dev/null",
    "unshare chmod 000 ~/notes.txt",
]


async def no(request):
    return False


async def must_not_ask(request):
    raise AssertionError(f"asked about {request.command}")


MODES = {
    "ask-headless": ("ask", deny_all),
    "ask-user-says-no": ("ask", no),
    "auto": ("auto", no),
    "deny": ("deny", must_not_ask),
}


async def run(ctx, command: str):
    return await tool.run({"command": command}, ctx)


@needs_landlock
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("command", ISSUE_COMMANDS)
async def test_commands_aimed_at_the_home_leave_it_unchanged(scratch, mode, command):
    approval, approver = MODES[mode]
    before = scratch.snapshot()
    await run(scratch.ctx(approval, approve=approver), command.format(home=scratch.home))
    assert scratch.snapshot() == before


@pytest.mark.parametrize("command", ISSUE_COMMANDS)
async def test_in_allow_mode_the_same_commands_do_the_damage(scratch, command):
    before = scratch.snapshot()
    result = await run(scratch.ctx("allow", approve=must_not_ask), command.format(home=scratch.home))
    assert scratch.snapshot() != before, result.content


@needs_landlock
async def test_the_kernel_blocks_unreadable_code_that_writes_outside(scratch):
    # Inline Python the policy cannot read runs without a question in auto mode: only Landlock stops it.
    script = "open(__import__('os').path.expanduser('~/notes.txt'), 'w').write('pwned')"
    before = scratch.snapshot()
    result = await run(scratch.ctx("auto", approve=must_not_ask), f'python3 -c "{script}"')
    assert scratch.snapshot() == before
    # Read-only mounts answer first where namespaces work; Landlock's "Permission denied" without them.
    assert BLOCKED.search(result.content) and BLOCKED_NOTE in result.content
    assert result.content.endswith("[exit code: 1]")


@needs_landlock
async def test_writes_inside_the_project_and_the_temp_dir_work_under_the_sandbox(scratch):
    command = (
        "mkdir -p d/e && echo one > d/e/f && mv d/e/f d/g && ln -s g d/link && truncate -s 2 d/g "
        "&& mkfifo d/pipe && echo tmp > $TMPDIR/t && echo x > /dev/null && rm -r d/e && cat d/link"
    )
    result = await run(scratch.ctx("auto", approve=must_not_ask), command)
    assert result.content == "on\n[exit code: 0]"
    assert (scratch.proj / "d" / "g").read_text() == "on" and (scratch.tmp / "t").read_text() == "tmp\n"


@needs_landlock
async def test_writable_paths_are_writable_in_the_sandbox(scratch):
    ctx = scratch.ctx("auto", approve=must_not_ask, writable=(scratch.home / "x",))
    result = await run(ctx, "python3 -c \"open('../x/made.txt', 'w').write('ok')\"")
    assert result.content == "[exit code: 0]" and (scratch.home / "x" / "made.txt").read_text() == "ok"


@needs_landlock
async def test_a_sandboxed_command_cannot_signal_processes_it_did_not_start(scratch):
    outsider = subprocess.Popen(["sleep", "60"])
    try:
        result = await run(scratch.ctx("auto", approve=must_not_ask), f"kill -TERM {outsider.pid}")
        assert "Operation not permitted" in result.content and BLOCKED_NOTE in result.content
        time.sleep(0.2)
        assert alive(outsider.pid)
        own = await run(scratch.ctx("auto", approve=must_not_ask), "sleep 60 & kill -TERM $!; wait $!; echo $?")
        assert own.content.startswith("143"), "its own children it may signal"
    finally:
        outsider.kill()
        outsider.wait()


@needs_landlock
async def test_an_approved_escape_runs_outside_the_sandbox(scratch):
    async def yes(request):
        return True

    await run(scratch.ctx("ask", approve=yes), "rm -rf ~/x")
    assert not (scratch.home / "x").exists()


@needs_landlock
@pytest.mark.parametrize("command", ["rm -rf $TMPDIR/*", "find $TMPDIR -delete", "cd $TMPDIR && find . -delete"])
async def test_emptying_the_shared_temp_dir_asks_even_in_auto_mode(scratch, command):
    """Writing in the temp dir is free, but other programs keep sockets and state there."""
    theirs = scratch.tmp / "tmux-1000" / "default"
    theirs.parent.mkdir()
    theirs.write_text("another program's socket\n")
    result = await run(scratch.ctx("auto", approve=no), command)
    assert "the user denied this command" in result.content and "a directory other programs use" in result.content
    assert theirs.read_text() == "another program's socket\n"


@pytest.fixture
def tmux_server(scratch):
    """A tmux server started outside any sandbox, as the user's own would be; its socket is private."""
    socket = scratch.tmp / "tmux.sock"
    subprocess.run(["tmux", "-S", str(socket), "new-session", "-d", "sleep 300"], check=True, timeout=10)
    yield socket
    subprocess.run(["tmux", "-S", str(socket), "kill-server"], check=False, timeout=10)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("mode", ["ask-headless", "allow"])
async def test_a_tmux_server_outside_the_sandbox_runs_nothing_unasked(scratch, tmux_server, mode):
    """Landlock does not follow a command into a server started before it: the policy must ask."""
    approval, approver = MODES.get(mode, ("allow", must_not_ask))
    command = f"tmux -S {tmux_server} new-window -d 'rm -rf {scratch.home}/x'"
    before = scratch.snapshot()
    result = await run(scratch.ctx(approval, approve=approver), command)
    if mode == "allow":
        deadline = time.monotonic() + 10
        while (scratch.home / "x").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert scratch.snapshot() != before, "the route is real: the server deletes what the command names"
    else:
        assert result.is_error and "tmux server" in result.content
        time.sleep(0.5)
        assert scratch.snapshot() == before


async def test_without_a_sandbox_unreadable_code_asks(scratch):
    requests = []

    async def approver(request):
        requests.append(request)
        return False

    before = scratch.snapshot()
    result = await run(scratch.ctx("ask", approve=approver, sandbox=False), "python3 -c 'print(1)'")
    assert requests and result.is_error and "the user denied this command" in result.content
    assert scratch.snapshot() == before


# -- tool processes die with hermeslite ---------------------------------------------------------

HOST = textwrap.dedent("""
    import asyncio, signal, sys
    from pathlib import Path
    from hermeslite.tools import process_groups
    from hermeslite.tools.base import ToolContext
    from hermeslite.tools.terminal import TerminalTool

    async def main(cwd, command):
        # As a shell starts it, whatever the test runner inherited (nohup ignores SIGHUP), or as nohup does.
        signal.signal(signal.SIGHUP, signal.SIG_IGN if sys.argv[4] == "nohup" else signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        process_groups.install_exit_cleanup()
        ctx = ToolContext(cwd=Path(cwd), approval_policy="allow", terminal_timeout=300)
        await TerminalTool().run({"command": command}, ctx)
        print("command finished", flush=True)
        if sys.argv[3] == "wait":
            await asyncio.sleep(300)

    asyncio.run(main(*sys.argv[1:3]))
""")


def _host(tmp_path: Path, command: str, then: str, started: str = "shell") -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, "-c", HOST, str(tmp_path), command, then, started], env=env, stdout=subprocess.PIPE, text=True
    )


def _pids(tmp_path: Path, *names: str) -> list[int]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if all((tmp_path / n).exists() and (tmp_path / n).read_text().strip() for n in names):
            return [int((tmp_path / n).read_text()) for n in names]
        time.sleep(0.02)
    raise AssertionError(f"{names} never appeared")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_running_command_dies_when_hermeslite_is_signalled(tmp_path, sig):
    host = _host(tmp_path, "echo $$ > sh.pid; sleep 300 & echo $! > bg.pid; sleep 300", "wait")
    try:
        shell, background = _pids(tmp_path, "sh.pid", "bg.pid")
        host.send_signal(sig)
        assert host.wait(10) == -sig, "hermeslite still dies of the signal"
        assert gone_within(shell) and gone_within(background)
    finally:
        host.kill()


def test_under_nohup_a_hangup_is_ignored_and_the_command_keeps_running(tmp_path):
    """A SIGHUP someone chose to ignore (nohup) stays ignored: the cleanup handler is not forced on."""
    host = _host(tmp_path, "echo $$ > sh.pid; sleep 300", "wait", started="nohup")
    try:
        (shell,) = _pids(tmp_path, "sh.pid")
        host.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            host.wait(1)
        assert alive(shell)
        os.killpg(shell, signal.SIGKILL)  # the command runs in its own session, which a SIGKILL of the host spares
    finally:
        host.kill()
        host.wait(10)


@pytest.mark.parametrize(
    "command",
    [
        "sleep 300 > /dev/null 2>&1 & echo $! > bg.pid",
        # It leaves the command's process group and session: only the environment mark finds it.
        "setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > bg.pid",
        "(setsid sh -c 'echo $$ > bg.pid; exec sleep 300' > /dev/null 2>&1 < /dev/null &); sleep 0.2",
    ],
)
def test_a_server_left_running_dies_when_hermeslite_exits_normally(tmp_path, command):
    host = _host(tmp_path, command, "exit")
    try:
        (server,) = _pids(tmp_path, "bg.pid")
        assert host.wait(20) == 0
        assert gone_within(server)
    finally:
        host.kill()
