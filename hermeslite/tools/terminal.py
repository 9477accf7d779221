"""The `terminal` tool: one bash command, its output and its exit code.

Every command gets its own session (process group, no controlling terminal):
a password prompt fails at once instead of stealing the TUI's keyboard, and a
timeout or a cancelled turn can kill everything the command started, not just
bash, so no `sleep 999 &` or dev server outlives the turn by accident; groups
still alive are killed when hermeslite exits (see `process_groups`).

The approval policy decides whether a command runs, asks or is refused, and
whether it runs inside the Landlock sandbox. Every command starts through the
`sandbox_exec` launcher (resource limits, and the sandbox when on) with an
environment stripped of provider credentials.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from pathlib import Path
from typing import Any, ClassVar

from hermeslite.context.exit_codes import exit_line
from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools import process_groups
from hermeslite.tools.approval import check_approval
from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.environment import tool_environment
from hermeslite.tools.sandbox import prepare
from hermeslite.tools.sandbox_notes import failure_notes
from hermeslite.tools.spill import OutputSink, SpilledOutput

KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_GRACE = 0.5  # seconds to wait for output still in flight after bash exits
TIMED_OUT_CODE = 124  # what coreutils `timeout` reports, so the line stays parseable
CHUNK = 65536


class TerminalTool:
    name = "terminal"
    role: ToolRole | None = ToolRole.RUNS_COMMANDS
    writes = True  # a command can change any file (sed -i, a formatter, mv, rm)
    description = (
        "Run a bash command in the working directory and return its combined stdout and stderr "
        "followed by its exit code. Stdin is empty, so interactive programs fail rather than wait. "
        "Long output keeps its head and tail; the result then gives the recall id of the whole. To keep a server running, start it in the background "
        "with its output redirected to a file (cmd > log 2>&1 &)."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "the bash command line to run"},
            "timeout": {"type": "number", "description": "seconds before the command is killed (default from config)"},
        },
        "required": ["command"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = args["command"]
        asked = float(args.get("timeout") or ctx.terminal_timeout)
        if not command.strip():
            return ToolResult.error("empty command")
        if asked <= 0:
            return ToolResult.error("timeout must be a positive number of seconds")
        if not Path(ctx.cwd).is_dir():
            return ToolResult.error(f"working directory {ctx.cwd} does not exist")
        if ctx.mode == "plan" and not ctx.planning:
            return ToolResult.error("plan mode is on but the kernel sandbox is not available; no command can run")
        env = tool_environment(os.environ, hidden=ctx.hidden_env, passed=ctx.pass_env)
        decision = await check_approval(command, ctx, env)
        if decision.refusal:
            return ToolResult.refusal(decision.refusal)
        sandbox = ctx.sandbox if decision.sandboxed else None
        if ctx.planning and ctx.sandbox is not None and ctx.scratch is not None:  # (narrowed for mypy)
            sandbox = ctx.sandbox.planning(ctx.scratch)  # plan mode: nothing writable but the scratch dir
            env = {**env, "TMPDIR": str(sandbox.scratch)}
        timeout = min(asked, ctx.terminal_timeout)
        try:
            launch = prepare(command, Path(ctx.cwd), sandbox, env, network=decision.network)
        except OSError as exc:
            return ToolResult.error(f"the sandbox could not be set up ({exc}); the command was not run")
        spilled = SpilledOutput(ctx.output_limit, ctx.archive_ceiling, ctx.spill_dir)
        try:
            code, notes = await run_command(launch.argv, {**env, **launch.env}, timeout, spilled, fds=launch.fds)
            output = await spilled.result(ctx, self.name)
        finally:
            spilled.close()
        # In plan mode a write refused on the way to a success is worth the note too: the model may not notice it.
        if sandbox is not None and (code != 0 or sandbox.scratch is not None):
            notes += failure_notes(
                output, offline=sandbox.denies_network and not decision.network, scratch=sandbox.scratch
            )
        if asked > timeout and code == TIMED_OUT_CODE:
            notes.append(f"[{asked:g} s was asked; tools.terminal_timeout caps commands at {timeout:g} s]")
        body = output.rstrip("\n")
        lines = ([body] if body else []) + notes + [exit_line(code)]
        return ToolResult("\n".join(lines), is_error=code != 0, exit_code=code)


async def run_command(
    argv: list[str], env: dict[str, str], timeout: float, buffer: OutputSink, *, fds: tuple[int, ...] = ()
) -> tuple[int, list[str]]:
    """Exit code and notes about what was killed, the output fed to `buffer`; kills the group if cancelled.

    `argv` is a launcher command line (`sandbox.prepare`), so it starts in `/`
    and moves to the command's cwd itself; `fds` are descriptors it must
    inherit (the sandbox's namespaces). Output goes through a
    pipe we own rather than asyncio's, because asyncio's `wait()` also waits
    for the pipes to close, and a background child holding them would make a
    finished command look like it hangs.
    """
    process_groups.prune()
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd="/",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
            env={**env, **process_groups.owner_mark()},
            pass_fds=fds,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    process_groups.track(proc.pid)
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    notes: list[str] = []
    timed_out = False
    transport = reader = None
    try:
        stream = asyncio.StreamReader(limit=CHUNK * 2)
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), pipe
        )
        reader = asyncio.create_task(_pump(stream, buffer))
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            timed_out = True
            await _terminate_group(proc)
            notes.append(f"[timed out after {timeout:g} s; process group killed]")
        await asyncio.wait({reader}, timeout=DRAIN_GRACE)
        if not reader.done() and not timed_out:
            # Background children still hold the output open: they would write into a closed pipe.
            await _terminate_group(proc)
            await asyncio.wait({reader}, timeout=DRAIN_GRACE)
            notes.append(
                "[background processes still holding the output open were killed; "
                "redirect their output to a file to keep them running]"
            )
    except asyncio.CancelledError:
        await asyncio.shield(_terminate_group(proc))
        raise
    finally:
        if reader is not None:
            reader.cancel()
        if transport is not None:
            transport.close()  # closes the pipe too
        else:
            pipe.close()
        if not process_groups.alive(proc.pid):  # a server left running stays tracked until hermeslite exits
            process_groups.untrack(proc.pid)
    code = TIMED_OUT_CODE if timed_out else _exit_code(proc.returncode)
    return code, notes


async def _pump(stream: asyncio.StreamReader, buffer: OutputSink) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := await stream.read(CHUNK):
        buffer.feed(decoder.decode(chunk))
    buffer.feed(decoder.decode(b"", final=True))


def _exit_code(returncode: int | None) -> int:
    """Shell convention: death by signal N reads as 128+N, never as a negative number."""
    if returncode is None:
        return -1
    return 128 - returncode if returncode < 0 else returncode


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _terminate_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the whole group, SIGKILL whatever is left after the grace, and reap bash."""
    _signal_group(proc.pid, signal.SIGTERM)
    deadline = asyncio.get_running_loop().time() + KILL_GRACE
    while asyncio.get_running_loop().time() < deadline:
        if proc.returncode is not None and not process_groups.alive(proc.pid):
            break
        await asyncio.sleep(0.05)
    _signal_group(proc.pid, signal.SIGKILL)
    await proc.wait()
