"""One writer per session: an OS file lock held while a process has the session open.

Two processes writing one session lose work: a compaction in one rewrites
the transcript without the turn the other just finished, and two
`--continue` runs interleave their messages. So a process claims a session
before it writes to it and keeps the claim until it closes the session or
exits. The claim is an exclusive `flock` on `<session id>.lock` in a folder
next to the database. The kernel drops it when the holder dies, kill -9
included, so a crashed process never locks a session for good. The file
holds the holder's pid so the second opener can say who has it.

Releasing deletes the file while still holding the lock. Someone who opened
the file just before that would lock a deleted file, so every acquirer checks
afterwards that the path still names the file it locked, and retries if not.

Where `fcntl` is missing (Windows) claims only keep track within the process.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .errors import StoreError, from_os_error

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: locking is skipped

PROGRAM = "hermeslite"


class SessionBusy(StoreError):
    """Another process has the session open."""


class SessionLock:
    """The claim on one session; `release()` (or process exit) gives it up."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, folder: Path, session_id: str) -> SessionLock:
        """Claim `session_id`; SessionBusy names the holder's pid when another process has it."""
        path = folder / f"{session_id}.lock"
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            while True:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
                if not _try_lock(fd):
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise SessionBusy(f"session {session_id} is in use by {holder}; wait for it or start a new one")
                if _names(path, fd):
                    break
                os.close(fd)  # a releasing holder deleted the file we locked: lock the new one
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {PROGRAM}\n".encode())
        except OSError as exc:
            raise from_os_error(exc, folder) from None
        return cls(path, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self._fd)  # closing the last descriptor drops the flock
        self._fd = None


def _try_lock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _names(path: Path, fd: int) -> bool:
    """Whether `path` still names the open file `fd`."""
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (mine.st_dev, mine.st_ino)


def _read_holder(fd: int) -> str:
    """'pid N (hermeslite)' from the lock file, or a vaguer phrase while the holder is still writing it."""
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").split()
    except OSError:
        text = []
    if text and text[0].isdigit():
        program = text[1] if len(text) > 1 else PROGRAM
        return f"pid {text[0]} ({program})"
    return f"another {PROGRAM} process"
