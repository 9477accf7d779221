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

# The text of an archived message that search reads: its content (a string, or the text parts of a
# list), then each tool call's name and arguments. Pure SQL, so the index follows the archive in
# the same statement whichever connection writes it. `m` is the message's JSON.
_SEARCH_TEXT = """
    COALESCE(CASE json_type(m, '$.content')
        WHEN 'text' THEN json_extract(m, '$.content')
        WHEN 'array' THEN (SELECT group_concat(CASE
                               WHEN p.type = 'text' THEN p.value
                               WHEN p.type = 'object' AND json_extract(p.value, '$.type') = 'text'
                               THEN json_extract(p.value, '$.text') END, char(10))
                           FROM json_each(m, '$.content') p)
    END, '')
    || COALESCE((SELECT char(10) || group_concat(
                     COALESCE(json_extract(c.value, '$.function.name'), '') || ' '
                     || COALESCE(json_extract(c.value, '$.function.arguments'), ''), char(10))
                 FROM json_each(m, '$.tool_calls') c WHERE c.type = 'object'), '')
"""


def _search_text(json_column: str) -> str:
    return _SEARCH_TEXT.replace("(m,", f"({json_column},")


# v5: full-text search over the archive (`recall` with a query). `archive_docs` gives each archived
# original an integer id (the FTS row id; the archive's own rowid may change on VACUUM) and keeps
# its role and tool name; `archive_fts` indexes the session id (to narrow a search to one session
# inside the index) and the text. Triggers keep both in step with the archive in the same
# transaction; the last two statements index what older versions archived (a row that is not
# JSON, which only damage can leave, stays unindexed rather than keep the database from opening).
_V5 = [
    """
    CREATE TABLE archive_docs (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        ref TEXT NOT NULL,
        role TEXT NOT NULL,
        tool TEXT,
        UNIQUE (session_id, ref)
    )
    """,
    "CREATE VIRTUAL TABLE archive_fts USING fts5(session, body, tokenize = 'unicode61 remove_diacritics 2')",
    f"""
    CREATE TRIGGER archive_index_insert AFTER INSERT ON archive BEGIN
        INSERT INTO archive_docs (session_id, ref, role, tool)
        VALUES (new.session_id, new.ref, COALESCE(json_extract(new.json, '$.role'), ''),
                json_extract(new.json, '$.name'));
        INSERT INTO archive_fts (rowid, session, body)
        VALUES (last_insert_rowid(), new.session_id, {_search_text("new.json")});
    END
    """,
    """
    CREATE TRIGGER archive_index_delete AFTER DELETE ON archive BEGIN
        DELETE FROM archive_fts
         WHERE rowid = (SELECT id FROM archive_docs WHERE session_id = old.session_id AND ref = old.ref);
        DELETE FROM archive_docs WHERE session_id = old.session_id AND ref = old.ref;
    END
    """,
    """
    INSERT INTO archive_docs (session_id, ref, role, tool)
    SELECT session_id, ref, COALESCE(json_extract(json, '$.role'), ''), json_extract(json, '$.name')
    FROM archive WHERE json_valid(json) ORDER BY rowid
    """,
    f"""
    INSERT INTO archive_fts (rowid, session, body)
    SELECT d.id, d.session_id, {_search_text("a.json")}
    FROM archive_docs d JOIN archive a ON a.session_id = d.session_id AND a.ref = d.ref
    """,
]

MIGRATIONS: list[list[str]] = [_V1, _V2, _V3, _V4, _V5]
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
