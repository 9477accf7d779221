"""Reading a window of numbered lines from a text file of any size, in bounded memory.

Iterating a file object by lines holds each whole line in memory, so a 1 GB
minified file with no newline costs gigabytes to show 2,000 characters. This
reader goes through the file in chunks, keeps only the bytes of each line that
can be shown, and after the window is full only counts the newlines that
follow, up to a budget: a huge file gets "lines 1-2000 of more than N" rather
than a full scan. It decodes only what it shows, plus, for a line it cuts, the margin
redaction reads past the cut (so the cut cannot leave a piece of a key it goes through).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from hermeslite.context.redact import CUT_CONTEXT, redact_slice

CHUNK = 1 << 16
# Bytes read past what is shown (the rest of a cut line, the lines after the window) before
# counting stops; 16 MB takes a few milliseconds and exactly counts almost every source file.
SCAN_BUDGET = 16 << 20
UTF8_MAX = 4  # bytes per character at most


@dataclass
class Window:
    entries: list[str] = field(default_factory=list)  # formatted `number<TAB>text` lines
    lines_seen: int = 0  # lines in the file, or as far as counting went when not `complete`
    complete: bool = True  # the whole file was scanned, so `lines_seen` is its line count
    cut_by_size: bool = False  # the window stopped at the character cap, not at `limit`


@dataclass
class _Line:
    kept: bytearray = field(default_factory=bytearray)
    length: int = 0  # bytes of the line so far, newline excluded


class _Reader:
    def __init__(self, offset: int, limit: int, max_chars: int, max_line_chars: int) -> None:
        self.offset, self.limit, self.max_chars, self.max_line_chars = offset, limit, max_chars, max_line_chars
        # Past the cut, enough of a long line is kept for redaction to read a secret the cut goes through.
        self.keep = (max_line_chars + CUT_CONTEXT) * UTF8_MAX + 1
        self.window = Window()
        self.size = 0
        self.full = False
        self.number = 1  # the line being read
        self.line = _Line()
        self.skipped = 0  # bytes read that will never be shown
        self.open_tail = False  # once full: bytes after the last newline (a last line with no newline)

    def feed(self, chunk: bytes) -> None:
        pos = 0
        while pos < len(chunk) and not self.full:
            newline = chunk.find(b"\n", pos)
            end = len(chunk) if newline < 0 else newline
            self._take(chunk[pos:end])
            if newline < 0:
                return
            self._finish(complete=True)
            pos = newline + 1
        if self.full and pos < len(chunk):
            self.window.lines_seen += chunk.count(b"\n", pos)
            self.skipped += len(chunk) - pos
            self.open_tail = not chunk.endswith(b"\n")

    def _take(self, piece: bytes) -> None:
        if self.number >= self.offset:
            room = self.keep - len(self.line.kept)
            self.line.kept += piece[: max(room, 0)]
            self.skipped += max(len(piece) - max(room, 0), 0)
        self.line.length += len(piece)

    def _finish(self, complete: bool) -> None:
        """Line `number` ended (or counting stopped inside it); add it to the window if it belongs."""
        self.window.lines_seen = self.number
        if self.number >= self.offset:
            entry = self._entry(complete)
            if len(self.window.entries) >= self.limit:
                self.full = True
            elif self.window.entries and self.size + len(entry) > self.max_chars:
                self.full = self.window.cut_by_size = True
            else:
                self.window.entries.append(entry)
                self.size += len(entry) + 1
        self.number += 1
        self.line = _Line()

    def _entry(self, complete: bool) -> str:
        text = self.line.kept.decode("utf-8", errors="replace")
        whole = complete and self.line.length == len(self.line.kept)
        if whole:
            text = text.removesuffix("\r")
        if whole and len(text) <= self.max_line_chars:
            return f"{self.number:>6}\t{text}"
        size = f"{self.line.length} bytes" if complete else f"more than {self.line.length} bytes"
        return f"{self.number:>6}\t{redact_slice(text, 0, self.max_line_chars)} …[line cut, {size}]"

    def end(self, at_eof: bool) -> Window:
        if self.full:
            self.window.lines_seen += self.open_tail and at_eof
        elif self.line.length or not at_eof:
            self._finish(complete=at_eof)
        self.window.complete = at_eof
        return self.window


def read_window(
    fd: int, offset: int, limit: int, max_chars: int, max_line_chars: int, budget: int = SCAN_BUDGET
) -> Window:
    """Lines `offset`.. of the open file `fd` (read from where it is), at most `limit` of them and
    about `max_chars` in all, each cut at `max_line_chars`."""
    reader = _Reader(offset, limit, max_chars, max_line_chars)
    while reader.skipped <= budget:
        chunk = os.read(fd, CHUNK)
        if not chunk:
            return reader.end(at_eof=True)
        reader.feed(chunk)
    return reader.end(at_eof=False)
