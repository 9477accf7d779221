"""The sessions database connection: opened safely, written in transactions, sessions claimed.

A database file can be damaged (a crash of the disk, a copy cut short), be
a directory, come from a newer hermeslite, or sit in a folder that cannot be
written. Each must end as one line naming the file, and a damaged or newer
file must not be written to, not even by the journal-mode switch or a
migration. So the file is checked with reads first (its schema version, its
table list; SQLite checks the header and the size on the way) and only then
put in WAL mode and migrated.

After that, every SQLite error becomes a `StoreError` (see `errors.py`); one
that shows damage is remembered and every later write refused. Writes to a
session claim it first (see `locks.py`), so this process is its one writer.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from hermeslite.paths import ensure_dir

from .errors import StoreDamaged, StoreError, from_os_error, translate, unwritable
from .locks import SessionLock
from .schema import SCHEMA_VERSION, check_version, migrate

RunSQL = Callable[[str, tuple], list[tuple]]  # `Database.query`, as the store's query modules take it

BUSY_TIMEOUT_S = 10.0


class Database:
    """One connection shared by threads (guarded by `lock`) and the sessions this store has claimed."""

    def __init__(self, path: Path) -> None:
        """Open, check and migrate the database at `path` (or ":memory:"); StoreError on any fault."""
        self.path = path
        self.lock = threading.RLock()
        self.conn, self.journal_mode, self.schema_version = _connect(path)
        memory = str(path) == ":memory:"  # private to this connection: nobody to share a session with
        self._locks_dir = None if memory else path.with_name(path.name + ".locks")
        self._claims: dict[str, SessionLock] = {}
        self._damage: StoreDamaged | None = None

    def close(self) -> None:
        with self.lock:
            for claim in self._claims.values():
                claim.release()
            self._claims.clear()
            with contextlib.suppress(sqlite3.ProgrammingError):
                self.conn.close()

    def claim(self, session_id: str) -> None:
        """Make this store the session's one writer until `release` or `close`; SessionBusy if another process is."""
        with self.lock:
            if self._locks_dir is not None and session_id not in self._claims:
                self._claims[session_id] = SessionLock.acquire(self._locks_dir, session_id)

    def release(self, session_id: str) -> None:
        with self.lock:
            claim = self._claims.pop(session_id, None)
            if claim is not None:
                claim.release()

    @contextlib.contextmanager
    def transaction(self, session_id: str | None = None) -> Iterator[sqlite3.Connection]:
        """One write transaction on `session_id` (claimed first); committed on success, rolled back on any error.

        Integrity and programming errors stay as they are: they are the caller's to handle.
        """
        with self.lock:
            if self._damage is not None:
                raise self._damage
            if session_id is not None:
                self.claim(session_id)
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                yield self.conn
                self.conn.execute("COMMIT")
            except (sqlite3.IntegrityError, sqlite3.ProgrammingError):
                self._rollback()
                raise
            except sqlite3.Error as exc:
                self._rollback()
                raise self._fault(exc) from None
            except BaseException:
                self._rollback()
                raise

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self.lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.ProgrammingError:
                raise
            except sqlite3.Error as exc:
                raise self._fault(exc) from None

    def _rollback(self) -> None:
        """Undo an open transaction. SQLite may already have rolled back (a full disk does), and the
        error that says so must not hide the one that caused it."""
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    def _fault(self, exc: sqlite3.Error) -> StoreError:
        """The StoreError for `exc`; damage is remembered so nothing more is written to this file."""
        error = translate(exc, self.path)
        if isinstance(error, StoreDamaged):
            self._damage = error
        return error


def _connect(path: Path) -> tuple[sqlite3.Connection, str, int]:
    """An autocommit connection usable from any thread, to a checked, migrated database; with its
    journal mode and schema version."""
    memory = str(path) == ":memory:"
    if not memory:
        _check_file(path)
    fresh = not memory and not path.exists()
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
    except sqlite3.Error as exc:
        raise translate(exc, path) from None
    try:
        if fresh:
            with contextlib.suppress(OSError):
                os.chmod(path, 0o600)  # transcripts can hold pasted secrets
        version = check_version(conn, str(path))
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the schema page: damage shows here
        journal_mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        # WAL + NORMAL survives a killed process (the promise: kill -9 loses at most the
        # in-flight message) without an fsync per message; only a power cut can lose the tail.
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if version < SCHEMA_VERSION:
            version = migrate(conn, str(path))
    except sqlite3.Error as exc:
        conn.close()
        raise translate(exc, path) from None
    except BaseException:
        conn.close()
        raise
    return conn, journal_mode, version


def _check_file(path: Path) -> None:
    """Faults visible before SQLite opens the file: an unusable folder, a directory, no permission."""
    try:
        ensure_dir(path.parent)
    except OSError as exc:
        raise from_os_error(exc, path.parent) from None
    if path.is_dir():
        raise StoreDamaged(f"{path} is a directory, not a session database; move it aside to start a fresh one")
    if not os.access(path.parent, os.W_OK):  # WAL mode keeps two files next to the database
        raise unwritable(path.parent, "the folder is not writable")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise unwritable(path, "no permission to read and write it")
