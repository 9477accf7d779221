"""What can go wrong with the sessions database, as one line each for the user.

SQLite reports faults as `sqlite3.Error` with a result code; the user needs
to hear which file, what happened and what to do. `translate` turns a raw
error into one of the classes below. All are `UserFacingError`s, so a fault
that ends a command prints as one line; the agent catches `StoreError` while
a conversation runs, so a failed save never ends the conversation.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from hermeslite.errors import UserFacingError

# SQLite primary result codes (https://www.sqlite.org/rescode.html); extended codes keep them in the low byte.
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


class StoreError(UserFacingError):
    """A sessions-database fault; `str()` is the whole message for the user."""


class StoreDamaged(StoreError):
    """The file is not a usable database (corrupt, truncated, not SQLite, a directory). Never written to."""


class StoreWriteFailed(StoreError):
    """The disk is full, over a size limit or failing; nothing of the failed write was kept."""


class StoreUnwritable(StoreError):
    """The database or its folder cannot be written (read-only, permissions, not a folder)."""


class StoreBusy(StoreError):
    """Another process held the database's write lock past the busy timeout."""


def damaged(path: Path, detail: str) -> StoreDamaged:
    return StoreDamaged(
        f"the session database {path} is damaged ({detail}); hermeslite will not write to it: move it aside "
        f"(with any {path.name}-wal and {path.name}-shm next to it) to start a fresh one"
    )


def unwritable(path: Path, detail: str) -> StoreUnwritable:
    return StoreUnwritable(
        f"cannot save sessions in {path} ({detail}); make it writable, or set HERMESLITE_HOME to a writable folder"
    )


def from_os_error(exc: OSError, path: Path) -> StoreError:
    """A folder or lock-file error as one line naming `path`."""
    detail = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return StoreWriteFailed(f"no room to save sessions in {path} ({detail}); free some disk space")
    return unwritable(path, detail)


def translate(exc: sqlite3.Error, path: Path) -> StoreError:
    """The StoreError for a raw SQLite error on the database at `path`."""
    # Set only on errors SQLite itself reported (not on misuse such as a closed connection).
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    detail = str(exc) or type(exc).__name__
    if code in (_CORRUPT, _NOTADB):
        return damaged(path, detail)
    if code == _FULL:
        return StoreWriteFailed(f"the disk holding {path} is full ({detail}); free some space")
    if code == _IOERR:
        return StoreWriteFailed(f"could not write {path} ({detail}); the disk may be full or failing")
    if code in (_READONLY, _CANTOPEN):
        return unwritable(path.parent if code == _CANTOPEN else path, detail)
    if code in (_BUSY, _LOCKED):
        return StoreBusy(f"the session database {path} stayed locked by another process ({detail}); try again")
    return StoreError(f"the session database {path} failed: {detail}")
