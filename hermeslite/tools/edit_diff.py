"""What an edit changes in a file, as the user sees it: a unified diff and its stat.

write_file and patch compute one for every edit; the TUI's tool panel, the
approval dialog (`tools.edits: ask`), and the stderr lines of `-p` and the line
chat all show the same value, so this is pure computation with no rendering.
A binary file or one too large to diff usefully gets a one-line stat instead
of a wall of text (and difflib, quadratic at worst, never runs on it).
Credentials in the diff are masked as in tool output: a diff of `.env` shown
on stderr may end up in a CI log.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from hermeslite.context.redact import redact_secrets
from hermeslite.context.result import plural

MAX_DIFF_BYTES = 1 << 20  # either side larger than this: a stat line only
MAX_DIFF_INPUT_LINES = 20_000
CONTEXT_LINES = 3
BINARY_SNIFF = 8192


@dataclass(frozen=True)
class EditDiff:
    """The change one edit makes (or would make) to the file at `path`."""

    path: str  # as the tools show it: relative to the working directory when inside it
    added: int  # lines; 0 when `note` stands in for the diff
    removed: int
    text: str  # the unified diff; "" for no change or when `note` stands in for it
    created: bool = False  # the file did not exist before
    note: str = ""  # why there is no diff text: a binary or too large file, with its sizes

    @property
    def stat(self) -> str:
        """`+12 −3`, `new +40`, or the note's short form (`binary`, `large`), for a panel title."""
        if self.note:
            return self.note.split(",", 1)[0]
        counts = f"+{self.added} −{self.removed}"
        return f"new +{self.added}" if self.created else counts

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n") if self.text else []

    def summary(self) -> str:
        """One line: `app.py: +12 −3` or `logo.png: binary, 1.2 kB → 3.4 kB`."""
        if self.note:
            return f"{self.path}: {self.note}"
        if not self.text:
            return f"{self.path}: no change"
        return f"{self.path}: {'new file, ' if self.created else ''}+{self.added} −{self.removed}"

    def compact(self, max_lines: int) -> list[str]:
        """The summary, then the diff's change lines (hunk headers kept, file headers dropped), at
        most `max_lines` of them and a line saying how many more: for `-p`'s stderr."""
        body = [line for line in self.lines[2:] if line.startswith(("+", "-", "@@"))]
        if len(body) > max_lines:
            body = [*body[:max_lines], f"… {plural(len(body) - max_lines, 'more diff line')}"]
        return [self.summary(), *body]


def edit_diff(path: str, before: bytes | None, after: bytes, *, before_size: int | None = None) -> EditDiff:
    """The diff from `before` (None: the file is new) to `after`.

    `before_size` without `before` says the old file exists but was too large
    to read for a diff; only its size is known.
    """
    created = before is None and before_size is None
    old_size = len(before) if before is not None else (before_size or 0)
    if _binary(before) or _binary(after):
        return EditDiff(path, 0, 0, "", created, f"binary, {_sizes(old_size, len(after), created)}")
    if (before is None and not created) or max(old_size, len(after)) > MAX_DIFF_BYTES:
        return EditDiff(path, 0, 0, "", created, f"large, {_sizes(old_size, len(after), created)}, not diffed")
    old = (before or b"").decode("utf-8", errors="replace").splitlines()
    new = after.decode("utf-8", errors="replace").splitlines()
    if max(len(old), len(new)) > MAX_DIFF_INPUT_LINES:
        return EditDiff(path, 0, 0, "", created, f"large, {plural(len(new), 'line')}, not diffed")
    source = "/dev/null" if created else f"a/{path}"
    lines = list(difflib.unified_diff(old, new, source, f"b/{path}", n=CONTEXT_LINES, lineterm=""))
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    return EditDiff(path, added, removed, redact_secrets("\n".join(lines)), created)


def _binary(data: bytes | None) -> bool:
    return data is not None and b"\0" in data[:BINARY_SNIFF]


def _sizes(old: int, new: int, created: bool) -> str:
    return f"new, {_size(new)}" if created else f"{_size(old)} → {_size(new)}"


def _size(count: int) -> str:
    if count < 1000:
        return plural(count, "byte")
    return f"{count / 1000:.1f} kB" if count < 1_000_000 else f"{count / 1_000_000:.1f} MB"
