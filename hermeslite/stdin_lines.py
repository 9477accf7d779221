"""Lines from stdin for the line chat, read so that Ctrl-C ends a chat that waits for one.

`asyncio.to_thread(sys.stdin.readline)` parks the read in the default
executor, whose threads `asyncio.run` and then the interpreter join on the
way out: Ctrl-C at an idle prompt hung until the next line arrived, and a
second Ctrl-C did not help. Here each read runs in a daemon thread, which
nothing waits for, and uses `os.read` on the descriptor, so no buffered
reader's lock is left held by a thread still blocked at exit.

A read starts only when a line is asked for, so while a command runs nothing
is taken from the terminal that an editor (`/summary edit`) is reading.
"""

from __future__ import annotations

import asyncio
import os
import threading

CHUNK = 65_536  # a terminal in line mode returns one line per read whatever the size


class StdinLines:
    """`await readline()` as a file's readline: the next line with its newline, the last one without,
    b"" at the end of input."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = b""
        self._ended = False

    async def readline(self) -> bytes:
        while b"\n" not in self._pending and not self._ended:
            chunk = await _read(self._fd)
            self._pending += chunk
            self._ended = not chunk
        line, newline, self._pending = self._pending.partition(b"\n")
        return line + newline


async def _read(fd: int) -> bytes:
    """One `os.read` in a daemon thread. When the wait is cancelled (Ctrl-C ends the chat), the thread is
    left blocked and dies with the process."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[bytes] = loop.create_future()

    def settle(data: bytes | None, error: OSError | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(data or b"")

    def read() -> None:
        data, error = None, None
        try:
            data = os.read(fd, CHUNK)
        except OSError as exc:
            error = exc
        try:
            loop.call_soon_threadsafe(settle, data, error)
        except RuntimeError:  # the chat ended and its loop closed while this read waited
            return

    threading.Thread(target=read, name="stdin-reader", daemon=True).start()
    return await done
