"""MEMORY.md and USER.md: what the agent keeps between sessions.

Two small Markdown files in one folder. MEMORY.md ("memory") holds the agent's
own notes: environment facts, project conventions, lessons learned. USER.md
("user") holds what it knows about the person it works for: preferences,
corrections, habits. Each file is a list of entries separated by a line holding
only `§`, and each has a character limit so the block injected into the system
prompt stays small; when a file is full the model must consolidate (replace or
remove) before it can add.

Every edit is a read-modify-write under an exclusive `fcntl.flock` on a lock
file next to the data, and the new text lands through a temp file in the same
folder plus `os.replace`, so two hermeslite processes sharing the folder never
lose each other's edits and a crash never leaves a half-written file.

Nothing here raises for a bad request: edits return a `MemoryResult` the
memory tool (tools/memory.py) hands to the model, which can fix its call and try again.
A file that cannot be read (not UTF-8, a directory, no permission) raises
`MemoryUnreadable`, one line naming it, wherever it is read: an edit never
rewrites a file whose entries it could not see, so nothing in it is lost.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermeslite.context.clip import clip_line
from hermeslite.context.result import plural
from hermeslite.errors import UserFacingError
from hermeslite.paths import data_dir, ensure_dir

try:  # POSIX; elsewhere edits are serialized within this process only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: locking is skipped

ENTRY_DELIMITER = "\n§\n"
LOCK_NAME = ".memory.lock"
PREVIEW_CHARS = 80


@dataclass(frozen=True)
class _Target:
    filename: str
    title: str


TARGETS: dict[str, _Target] = {
    "memory": _Target("MEMORY.md", "MEMORY (your notes)"),
    "user": _Target("USER.md", "USER PROFILE (about the user)"),
}


class MemoryUnreadable(UserFacingError):
    """MEMORY.md or USER.md exists but cannot be read as text; `str()` names the file and why."""

    @classmethod
    def of(cls, path: Path, exc: OSError | UnicodeDecodeError) -> MemoryUnreadable:
        if isinstance(exc, UnicodeDecodeError):
            why = f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
        elif isinstance(exc, IsADirectoryError):
            why = "a directory, not a file"
        else:
            why = (exc.strerror or str(exc)).lower()
        return cls(f"cannot read the memory file {path}: {why}; it is left as it is: fix it or move it aside")


@dataclass(frozen=True)
class MemoryResult:
    """Outcome of an edit. `message` is written for the model and has no `error: ` prefix."""

    ok: bool
    message: str


def default_memory_dir(configured: str | None = None) -> Path:
    """`memory.dir` from the config (with `~` expanded), else the user data directory."""
    return Path(configured).expanduser() if configured else data_dir()


def _norm(text: str) -> str:
    """Whitespace-insensitive form used for duplicate checks and fuzzy matching."""
    return " ".join(text.split())


def parse_entries(text: str) -> list[str]:
    """Entries of a file's text; blank entries (stray delimiters, hand edits) are ignored."""
    text = text.replace("\r\n", "\n").strip()
    if not text:
        return []
    # A file may start or end with a delimiter line after hand edits: pad so split still sees it.
    parts = ("\n" + text + "\n").split(ENTRY_DELIMITER)
    return [part.strip() for part in parts if part.strip() and part.strip() != "§"]


def join_entries(entries: list[str]) -> str:
    return ENTRY_DELIMITER.join(entries)


class MemoryStore:
    """MEMORY.md ("memory") and USER.md ("user") in `folder`, each with its character limit."""

    def __init__(self, folder: Path, memory_limit: int = 2200, user_limit: int = 1375) -> None:
        self.folder = Path(folder)
        self.limits = {"memory": memory_limit, "user": user_limit}

    @classmethod
    def from_config(cls, config: Any) -> MemoryStore:
        """From a `MemoryConfig` (dir, memory_char_limit, user_char_limit)."""
        return cls(default_memory_dir(config.dir), config.memory_char_limit, config.user_char_limit)

    # ----------------------------------------------------------------- reading

    def path(self, target: str) -> Path:
        return self.folder / TARGETS[self._check(target)].filename

    def entries(self, target: str) -> list[str]:
        """Current entries of a file, read fresh from disk (another process may have written);
        MemoryUnreadable when it exists but cannot be read."""
        path = self.path(target)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            raise MemoryUnreadable.of(path, exc) from None
        return parse_entries(text)

    def usage(self, target: str) -> tuple[int, int]:
        """(characters used, limit) of a file, counting delimiters as stored."""
        return len(join_entries(self.entries(target))), self.limits[self._check(target)]

    def snapshot(self) -> str:
        """The block for the system prompt; "" when both files are empty.

        Called when the agent builds its system prompt; edits made afterwards
        show up the next time it is built (new session or after a compaction).
        """
        sections = []
        for target, spec in TARGETS.items():
            entries = self.entries(target)
            if not entries:
                continue
            used, limit = len(join_entries(entries)), self.limits[target]
            percent = round(100 * used / limit) if limit else 100
            sections.append(f"{spec.title} [{percent}% — {used}/{limit} chars]\n" + join_entries(entries))
        return "\n\n".join(sections)

    # ----------------------------------------------------------------- editing

    def add(self, target: str, content: str) -> MemoryResult:
        problem = self._target_problem(target) or self._content_problem(content)
        if problem:
            return MemoryResult(False, problem)
        content = content.strip()
        with self._locked():
            entries = self.entries(target)
            if any(_norm(entry) == _norm(content) for entry in entries):
                return MemoryResult(False, f"{self._name(target)} already has this entry; nothing added.")
            new = [*entries, content]
            over = self._over_limit(target, entries, new, f"this entry is {len(content)} chars")
            if over:
                return MemoryResult(False, over)
            self._write(target, new)
        return MemoryResult(True, f"Added to {self._name(target)}. {self._usage_line(target, new)}")

    def replace(self, target: str, old_text: str, new_content: str) -> MemoryResult:
        problem = (
            self._target_problem(target)
            or self._old_text_problem(old_text)
            or self._content_problem(new_content, hint="to delete an entry use remove")
        )
        if problem:
            return MemoryResult(False, problem)
        new_content = new_content.strip()
        with self._locked():
            entries = self.entries(target)
            index, problem = self._find(target, entries, old_text)
            if problem:
                return MemoryResult(False, problem)
            if any(i != index and _norm(e) == _norm(new_content) for i, e in enumerate(entries)):
                return MemoryResult(
                    False,
                    f"{self._name(target)} already has an entry with that content; "
                    "remove the old one instead of replacing it.",
                )
            new = [*entries[:index], new_content, *entries[index + 1 :]]
            over = self._over_limit(target, entries, new, f"the new entry is {len(new_content)} chars")
            if over:
                return MemoryResult(False, over)
            self._write(target, new)
        return MemoryResult(True, f"Replaced the entry in {self._name(target)}. {self._usage_line(target, new)}")

    def remove(self, target: str, old_text: str) -> MemoryResult:
        problem = self._target_problem(target) or self._old_text_problem(old_text)
        if problem:
            return MemoryResult(False, problem)
        with self._locked():
            entries = self.entries(target)
            index, problem = self._find(target, entries, old_text)
            if problem:
                return MemoryResult(False, problem)
            new = entries[:index] + entries[index + 1 :]
            self._write(target, new)
        return MemoryResult(
            True,
            f'Removed "{clip_line(entries[index], PREVIEW_CHARS)}" from {self._name(target)}. {self._usage_line(target, new)}',
        )

    # ----------------------------------------------------------------- helpers

    @staticmethod
    def _check(target: str) -> str:
        if target not in TARGETS:
            raise ValueError(f"unknown memory target {target!r}: use 'memory' or 'user'")
        return target

    @staticmethod
    def _target_problem(target: Any) -> str | None:
        return None if target in TARGETS else f"unknown target {target!r}: use 'memory' or 'user'."

    @staticmethod
    def _content_problem(content: Any, hint: str = "") -> str | None:
        if not isinstance(content, str) or not content.strip():
            return "content is empty" + (f"; {hint}." if hint else ".")
        if ENTRY_DELIMITER.strip() in [line.strip() for line in content.splitlines()]:
            return "content may not contain a line holding only '§' (it separates entries)."
        return None

    @staticmethod
    def _old_text_problem(old_text: Any) -> str | None:
        if not isinstance(old_text, str) or not old_text.strip():
            return "old_text is empty: give a short unique substring of the entry to change."
        return None

    @staticmethod
    def _name(target: str) -> str:
        return TARGETS[target].filename

    def _usage_line(self, target: str, entries: list[str]) -> str:
        used, limit = len(join_entries(entries)), self.limits[target]
        return f"{plural(len(entries), 'entry', 'entries')}, {used}/{limit} chars."

    def _over_limit(self, target: str, old: list[str], new: list[str], size_note: str) -> str | None:
        limit = self.limits[target]
        after = len(join_entries(new))
        if after <= limit:
            return None
        return (
            f"{self._name(target)} is at {len(join_entries(old))}/{limit} chars and {size_note}, "
            f"which would bring it to {after}/{limit} chars. Consolidate first: use replace to merge or "
            "shorten related entries, or remove ones that no longer matter, then try again."
        )

    def _find(self, target: str, entries: list[str], old_text: str) -> tuple[int, str | None]:
        """Index of the one entry containing `old_text` (exactly, else ignoring whitespace)."""
        needle = old_text.strip()
        matches = [i for i, entry in enumerate(entries) if needle in entry]
        if not matches:
            loose = _norm(needle)
            matches = [i for i, entry in enumerate(entries) if loose in _norm(entry)]
        if not matches:
            return -1, f'no entry in {self._name(target)} contains "{clip_line(needle, PREVIEW_CHARS)}".'
        if len(matches) > 1:
            listing = "\n".join(f'- "{clip_line(entries[i], PREVIEW_CHARS)}"' for i in matches)
            return -1, (
                f'"{clip_line(needle, PREVIEW_CHARS)}" matches {len(matches)} entries in {self._name(target)}:\n'
                f"{listing}\nUse a longer, more specific substring that appears in only one of them."
            )
        return matches[0], None

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        ensure_dir(self.folder)
        with open(self.folder / LOCK_NAME, "a+b") as handle:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                if fcntl is not None:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _write(self, target: str, entries: list[str]) -> None:
        """Atomically replace the file: temp file in the same folder, fsync, os.replace."""
        path = self.path(target)
        text = join_entries(entries) + ("\n" if entries else "")
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
