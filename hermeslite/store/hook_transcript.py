"""The session's transcript as a JSONL file that hook commands can read (`transcript_path`).

Written only when a hook is about to run, so a session without hooks never
creates one. One message per line, in the store's encoding (`dumps_message`)
with every string masked as an export masks it (`masked_strings`): a hook
script may copy the file anywhere. The file is brought up to date before each
hook: the lines of messages it already holds stay and only the new ones are
appended; when a compaction, /undo or /rewind replaced a message it had
written, the file is rewritten whole through a temporary file and a rename,
so a reader never sees half of it. Owner-only, like the session database.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from hermeslite.context.messages import Message
from hermeslite.context.secret_calls import masked_strings
from hermeslite.paths import data_dir, ensure_dir

from .transcript import dumps_message

FOLDER = "hook-transcripts"


def transcript_file(session_id: str) -> Path:
    """Where the hook transcript of `session_id` lives (it may not exist)."""
    return data_dir() / FOLDER / f"{session_id}.jsonl"


def remove_transcript(session_id: str) -> None:
    """Delete the hook transcript of `session_id`, if it has one."""
    with contextlib.suppress(FileNotFoundError):
        transcript_file(session_id).unlink()


class HookTranscript:
    """Keeps one session's transcript file current; remembers which message objects it has written."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._written: list[Message] = []  # the messages the file holds, in order (compared by identity)

    @property
    def path(self) -> Path:
        return transcript_file(self.session_id)

    def write(self, messages: Sequence[Message]) -> Path:
        """The file, brought up to date with `messages`; OSError when it cannot be written."""
        path = self.path
        written = self._written
        kept = len(written) <= len(messages) and all(a is b for a, b in zip(written, messages, strict=False))
        if kept and path.exists():
            new = messages[len(written) :]
            if new:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND)
                try:
                    _write_all(fd, _lines(new))
                finally:
                    os.close(fd)
        else:
            _replace(path, _lines(messages))
        self._written = list(messages)
        return path


def _lines(messages: Sequence[Message]) -> bytes:
    return "".join(dumps_message(masked_strings(m)) + "\n" for m in messages).encode("utf-8")


def _replace(path: Path, data: bytes) -> None:
    """`path` holding `data`, swapped in whole, mode 0600 from its first byte."""
    ensure_dir(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
