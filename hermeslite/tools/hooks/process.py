"""Running one hook command: its input on stdin, its stdout, stderr and exit code back, bounded.

A hook is the user's own program, so it runs as they would run it (bash,
outside the sandbox), but like a tool process: in its own process group with
no controlling terminal, without the provider's keys, marked as ours and
tracked so it dies with hermeslite (see `process_groups`). It gets `timeout`
seconds and OUTPUT_LIMIT bytes on each of stdout and stderr; past either its
whole group is killed and the run has no exit code, only the reason. A hook
that exits but leaves a child holding its output open has that child killed
after DRAIN_GRACE, so no hook can hold the session up past its timeout.

The pipes are our own rather than asyncio's: asyncio's `wait()` also waits
for its pipes to close, which a background child may never do.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from hermeslite.tools import process_groups

OUTPUT_LIMIT = 64 * 1024  # bytes read from each of stdout and stderr
DRAIN_GRACE = 0.5  # seconds for output still in flight after the hook exits
KILL_GRACE = 1.0  # seconds between SIGTERM and SIGKILL
CHUNK = 65536


@dataclass(frozen=True)
class HookRun:
    exit_code: int | None  # None: it did not finish, and `failure` says why
    stdout: str = ""
    stderr: str = ""
    failure: str | None = None  # `timed out after 5 s; its process group was killed`, ...


async def run_hook(argv: list[str], data: bytes, *, cwd: Path, env: dict[str, str], timeout: float) -> HookRun:
    """Run `argv` with `data` on stdin; kills its group when cancelled, timed out or too talkative."""
    process_groups.prune()
    stdin_read, stdin_write = os.pipe()
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    ours = [stdin_write, out_read, err_read]
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=str(cwd),
            stdin=stdin_read,
            stdout=out_write,
            stderr=err_write,
            start_new_session=True,
            env={**env, **process_groups.owner_mark()},
        )
    except OSError as exc:
        for fd in ours:
            os.close(fd)
        return HookRun(None, failure=f"could not start ({exc.strerror or exc})")
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in (stdin_read, out_write, err_write):
            os.close(fd)
    process_groups.track(proc.pid)
    # Wrapped at once: a cancellation before `_supervise` attaches them leaves objects that close
    # their descriptors, not bare numbers.
    stdin = os.fdopen(stdin_write, "wb", buffering=0)
    stdout = os.fdopen(out_read, "rb", buffering=0)
    stderr = os.fdopen(err_read, "rb", buffering=0)
    try:
        return await _supervise(proc, data, stdin, stdout, stderr, timeout)
    except asyncio.CancelledError:
        # Wherever the cancel lands, setting up the pipes included: on a loaded machine the hook can
        # be well under way before the first of those awaits returns.
        await asyncio.shield(_kill_group(proc))
        raise
    finally:
        if not process_groups.alive(proc.pid):
            process_groups.untrack(proc.pid)


async def _supervise(
    proc: asyncio.subprocess.Process, data: bytes, stdin: BinaryIO, stdout: BinaryIO, stderr: BinaryIO, timeout: float
) -> HookRun:
    """Feed the hook its input and read its output until it exits, floods or times out (then its
    group is killed); a cancellation is `run_hook`'s to answer."""
    loop = asyncio.get_running_loop()
    too_much = asyncio.Event()
    out, err = _Capture("stdout", too_much), _Capture("stderr", too_much)
    writer, _ = await loop.connect_write_pipe(asyncio.Protocol, stdin)
    readers = [await out.attach(loop, stdout), await err.attach(loop, stderr)]
    writer.write(data)
    writer.close()  # after the buffer drains; a hook that never reads its input is not waited for
    exited = asyncio.ensure_future(proc.wait())
    flooded = asyncio.ensure_future(too_much.wait())
    failure = None
    try:
        await asyncio.wait({exited, flooded}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if exited.done() and not too_much.is_set():
            await asyncio.wait(readers, timeout=DRAIN_GRACE)
        if too_much.is_set():
            failure = (
                f"printed more than {OUTPUT_LIMIT // 1024} KiB on {out.overflowed or err.overflowed}; it was stopped"
            )
        elif not exited.done():
            failure = f"timed out after {timeout:g} s; its process group was killed"
        if failure is not None or not all(reader.done() for reader in readers):
            await _kill_group(proc)  # a child left holding the output open goes too
            await asyncio.wait(readers, timeout=DRAIN_GRACE)
    finally:
        for task in (exited, flooded, *readers):
            task.cancel()
        if writer.get_write_buffer_size():  # input the hook never read; a drained pipe has closed itself
            writer.abort()
        out.close()
        err.close()
    if failure is not None:
        return HookRun(None, failure=failure)
    return HookRun(_exit_code(proc.returncode), out.text(), err.text())


class _Capture:
    """One output pipe read into memory up to OUTPUT_LIMIT bytes; past it, `flood` is set."""

    def __init__(self, name: str, flood: asyncio.Event) -> None:
        self.name = name
        self.flood = flood
        self.data = bytearray()
        self.overflowed: str | None = None
        self.transport: asyncio.ReadTransport | None = None

    async def attach(self, loop: asyncio.AbstractEventLoop, pipe: BinaryIO) -> asyncio.Task[None]:
        stream = asyncio.StreamReader(limit=CHUNK * 2)
        self.transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), pipe)
        return asyncio.ensure_future(self._pump(stream))

    async def _pump(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(CHUNK):
            self.data += chunk
            if len(self.data) > OUTPUT_LIMIT:
                self.overflowed = self.name
                self.flood.set()
                return

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def _exit_code(returncode: int | None) -> int:
    """Shell convention: death by signal N reads as 128+N."""
    if returncode is None:
        return -1
    return 128 - returncode if returncode < 0 else returncode


async def _kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the hook's group, SIGKILL what is left after KILL_GRACE, and reap the hook; then wait
    (KILL_GRACE at most) until nothing of the group runs, so a cancelled turn returns with the
    hook's children gone: on a loaded machine a killed child can take a moment to exit."""
    _signal_group(proc.pid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + KILL_GRACE
    while loop.time() < deadline:
        if proc.returncode is not None and not process_groups.alive(proc.pid):
            return
        await asyncio.sleep(0.05)
    _signal_group(proc.pid, signal.SIGKILL)
    await proc.wait()
    deadline = loop.time() + KILL_GRACE
    while process_groups.alive(proc.pid) and loop.time() < deadline:
        await asyncio.sleep(0.05)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
