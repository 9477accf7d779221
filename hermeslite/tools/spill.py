"""Tool output over the cap: the model reads its head and tail, the session archive keeps all of it.

`cap_output` drops the middle of a long output so one command cannot flood the
context window, but a dropped middle used to be gone for good: no `recall`
could bring back the failing test in line 40,000 of a build log. So every
result over the cap (the terminal's streamed output, an MCP tool's, a search's)
is also kept whole, redacted, in the session's archive, and the model's capped
copy ends with a line giving its recall id and how to search it.

A command may print gigabytes, so a streamed output goes to an unnamed file on
disk as it arrives (only the capped copy stays in memory). Up to the ceiling
(`tools.output_archive_mb`) the file holds every byte; past it the file keeps
the first half and a rolling last half, and the archived text says how much of
the middle was left out.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Protocol

from hermeslite.context.redact import redact_secrets, redact_slice
from hermeslite.tools.base import ToolContext
from hermeslite.tools.output import CappedBuffer, cap_output

NOTE_ROOM = 320  # what the cut's marker, the recall line and the exit line take: the result stays within the cap
REDACT_SLICE = 1 << 20  # a huge output is redacted a megabyte at a time, each slice with its surroundings in view
BLOCK = 1 << 20  # bytes copied at a time when the ceiling is crossed


class OutputSink(Protocol):
    """Where a command's output goes as it streams: a `CappedBuffer`, or a `SpilledOutput`."""

    def feed(self, chunk: str) -> None: ...


def archive_note(total: int, ref: str | None, problem: str = "", *, cut: bool = False) -> str:
    """The line the model reads after a capped output: where the whole is and how to get at it."""
    if ref is None:
        return f"\n[{total:,} characters in all; the whole output could not be archived: {problem}]"
    kept = "its first and last parts are" if cut else "the whole output is"
    return (
        f"\n[{total:,} characters in all; {kept} in the session archive under recall id {ref}: "
        f'recall(query="exact words") finds a passage from the middle, recall(id="{ref}") shows its ends]'
    )


def _ceiling_marker(omitted: int, ceiling: int) -> str:
    return (
        f"\n…[{omitted:,} bytes of the middle not archived: tools.output_archive_mb keeps "
        f"{ceiling / (1 << 20):g} MB of one output]…\n"
    )


def redact_large(text: str) -> str:
    """`redact_secrets(text)`, a slice at a time when `text` is long, so the rules' work stays local."""
    if len(text) <= REDACT_SLICE:
        return redact_secrets(text)
    return "".join(redact_slice(text, start, start + REDACT_SLICE) for start in range(0, len(text), REDACT_SLICE))


async def _archived(ctx: ToolContext, tool: str, total: int, prepare: Callable[[], str], *, cut: bool) -> str:
    """The note for an output whose archived text `prepare` makes (redacted), once it is kept."""
    if ctx.archive is None:
        return ""  # a tool run outside a session: the marker in the capped text says what was left out
    try:
        ref = await ctx.archive(tool, await asyncio.to_thread(prepare))
    except Exception as exc:  # noqa: BLE001 - the capped result still reaches the model
        return archive_note(total, None, str(exc))
    return archive_note(total, ref, cut=cut)


async def archive_text(ctx: ToolContext, tool: str, text: str) -> str:
    """Keep `text` (redacted, within the ceiling) in the archive; the note the model reads about it.

    For a tool that shapes its own excerpt of a long result (web_fetch keeps a page's start, or the
    sections a hint asks for) rather than `fit_result`'s head and tail."""
    cut = len(text.encode("utf-8", "surrogatepass")) > ctx.archive_ceiling
    return await _archived(ctx, tool, len(text), lambda: redact_large(_within(text, ctx.archive_ceiling)), cut=cut)


def _within(text: str, ceiling: int) -> str:
    """`text`; past `ceiling` bytes, its first and last half-ceiling around a marker."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= ceiling:
        return text
    half = ceiling // 2
    return _join_ends(data[:half], data[-half:], len(data) - 2 * half, ceiling)


def _join_ends(head: bytes, tail: bytes, omitted: int, ceiling: int) -> str:
    return head.decode("utf-8", "replace") + _ceiling_marker(omitted, ceiling) + tail.decode("utf-8", "replace")


async def fit_result(ctx: ToolContext, tool: str, text: str) -> str:
    """`text` as the model gets it: whole within the cap; else its head and tail and the archive's note."""
    if len(text) <= ctx.output_limit:
        return text
    return cap_output(text, ctx.output_limit, NOTE_ROOM) + await archive_text(ctx, tool, text)


class SpilledOutput:
    """A streamed output: its capped copy in memory, every byte of it (to the ceiling) in a file.

    Past the ceiling the file is cut to its first half, and what follows goes to
    a pair of files that take turns, each at most half the ceiling: the older is
    dropped when the newer fills, so disk and memory stay bounded however long a
    command prints.
    """

    def __init__(self, limit: int, ceiling: int, directory: Path | None) -> None:
        self.limit = limit
        self.ceiling = max(ceiling, 2)
        self._half = self.ceiling // 2
        self._dir = directory
        self._capped = CappedBuffer(limit, NOTE_ROOM)
        self._head: IO[bytes] = self._file()
        self._head_len = 0
        self._tails: list[IO[bytes]] = []  # past the ceiling: at most two, oldest first
        self._tail_len = 0  # bytes in the newest tail file
        self._bytes = 0

    @property
    def total(self) -> int:
        """Characters received."""
        return self._capped.total

    def _file(self) -> IO[bytes]:
        directory = self._dir if self._dir is not None and self._dir.is_dir() else None
        return tempfile.TemporaryFile(dir=directory)  # unnamed (O_TMPFILE where it can): no path to it

    def feed(self, chunk: str) -> None:
        if not chunk:
            return
        self._capped.feed(chunk)
        data = chunk.encode("utf-8", "surrogatepass")
        self._bytes += len(data)
        if not self._tails:
            room = self.ceiling - self._head_len
            self._head.write(data[:room])
            self._head_len += min(room, len(data))
            data = data[room:]
            if not data:
                return
            self._cross_ceiling()
        self._to_tail(data)

    def _cross_ceiling(self) -> None:
        """Keep the first half of the file as the head; its second half starts the rolling tail."""
        tail = self._file()
        self._head.seek(self._half)
        while block := self._head.read(BLOCK):
            tail.write(block)
        self._head.truncate(self._half)
        self._head_len = self._half
        self._tails = [tail]
        self._tail_len = self.ceiling - self._half

    def _to_tail(self, data: bytes) -> None:
        while data:
            room = self._half - self._tail_len
            if room <= 0:
                if len(self._tails) == 2:
                    self._tails.pop(0).close()
                self._tails.append(self._file())
                self._tail_len, room = 0, self._half
            self._tails[-1].write(data[:room])
            self._tail_len += min(room, len(data))
            data = data[room:]

    def whole_text(self) -> str:
        """Everything received (to the ceiling: its head and tail around a marker), not redacted."""
        self._head.seek(0)
        head = self._head.read()
        if not self._tails:
            return head.decode("utf-8", "replace")
        newest = self._tails[-1]
        newest.seek(0)
        tail = newest.read()
        if len(self._tails) == 2:
            older = self._tails[0]
            older.seek(self._tail_len)
            tail = older.read() + tail
        return _join_ends(head, tail, self._bytes - len(head) - len(tail), self.ceiling)

    async def result(self, ctx: ToolContext, tool: str) -> str:
        """What the model reads: the whole output within the cap, else its capped copy and the archive's note."""
        if self.total <= self.limit:
            return redact_secrets(self.whole_text())
        prepare = lambda: redact_large(self.whole_text())  # noqa: E731 - read and redacted off the event loop
        note = await _archived(ctx, tool, self.total, prepare, cut=bool(self._tails))
        return self._capped.text() + note

    def close(self) -> None:
        for file in (self._head, *self._tails):
            file.close()
