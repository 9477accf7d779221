"""The sessions database schema and its migrations.

`PRAGMA user_version` holds the schema version. `MIGRATIONS[i]` takes a
database from version i to i+1, so a new version is one more entry at the end;
never edit a released one, and a new table is one more entry too. A database
newer than this code is refused rather than guessed at, before anything is
written to it.
"""

from __future__ import annotations

import sqlite3

from .errors import StoreError

_V1 = [
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        title TEXT,
        model TEXT,
        cwd TEXT,
        todos TEXT,
        transcript_generation INTEGER NOT NULL DEFAULT 0
    )
    """,
    "CREATE INDEX sessions_updated ON sessions(updated_at)",
    """
    CREATE TABLE messages (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        generation INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        json TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, generation, seq)
    )
    """,
    """
    CREATE TABLE compactions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        at REAL NOT NULL,
        trigger TEXT NOT NULL CHECK (trigger IN ('preflight', 'reactive', 'manual')),
        focus TEXT,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        messages_before INTEGER NOT NULL,
        messages_after INTEGER NOT NULL,
        fallback INTEGER NOT NULL DEFAULT 0,
        aborted INTEGER NOT NULL DEFAULT 0,
        summary TEXT,
        error TEXT
    )
    """,
    "CREATE INDEX compactions_session ON compactions(session_id, id)",
    """
    CREATE TABLE archive (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        json TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, ref)
    )
    """,
]

# v2: what each model request consumed (see store/usage.py).
_V2 = [
    """
    CREATE TABLE usage (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        at REAL NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('turn', 'summary', 'flush')),
        model TEXT,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cost REAL
    )
    """,
    "CREATE INDEX usage_session ON usage(session_id, id)",
]

# v3: the endpoint a session talks to, so --continue goes back to the same server. NULL: the
# provider's own endpoint, or a session recorded before v3.
_V3 = [
    "ALTER TABLE sessions ADD COLUMN api_base TEXT",
]

# v4: where a handed-off session came from (/handoff), and the transcript before the latest
# compaction, kept so /uncompress can bring it back (see undo.py).
_V4 = [
    "ALTER TABLE sessions ADD COLUMN parent_id TEXT",
    """
    CREATE TABLE undo_points (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        generation INTEGER,
        base_count INTEGER NOT NULL,
        size_bytes INTEGER NOT NULL,
        created_at REAL NOT NULL
    )
    """,
]

MIGRATIONS: list[list[str]] = [_V1, _V2, _V3, _V4]
SCHEMA_VERSION = len(MIGRATIONS)


class SchemaTooNew(StoreError):
    """The database was written by a newer hermeslite."""


def check_version(conn: sqlite3.Connection, path: str) -> int:
    """The database's schema version, read without writing; SchemaTooNew when it is newer than this code."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise _too_new(version, path)
    return version


def _too_new(version: int, path: str) -> SchemaTooNew:
    return SchemaTooNew(
        f"{path} uses session schema v{version}, but this hermeslite knows only up to "
        f"v{SCHEMA_VERSION}; upgrade hermeslite or point it at another data directory"
    )


def migrate(conn: sqlite3.Connection, path: str) -> int:
    """Bring the database up to SCHEMA_VERSION; returns the version. `conn` must be in autocommit mode.

    Each step runs in its own IMMEDIATE transaction that re-reads the version,
    so two processes opening a fresh database at once do not both migrate it.
    """
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise _too_new(version, path)
            if version == SCHEMA_VERSION:
                conn.execute("COMMIT")
                return version
            for statement in MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
