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

# The text of an archived original that search reads, from its JSON `m`: the content (a string,
# or the text parts of a list; images never), then each tool call's name and arguments. The
# recall tool's own calls and results are left out: they only repeat what the archive holds, and
# would crowd the originals out of the results. Pure SQL, so the index follows the archive
# whichever connection writes it; a row that is not JSON, which only damage leaves, reads as
# empty rather than keep the database from opening.
_SEARCH_TEXT = """
    CASE WHEN NOT json_valid(m) OR json_extract(m, '$.name') IS 'recall' THEN '' ELSE
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
                     FROM json_each(m, '$.tool_calls') c
                     WHERE c.type = 'object' AND json_extract(c.value, '$.function.name') IS NOT 'recall'), '')
    END
"""


def _text_of(json_sql: str) -> str:
    return _SEARCH_TEXT.replace("(m,", f"({json_sql},").replace("(m)", f"({json_sql})")


def _field(json_sql: str, path: str) -> str:
    return f"CASE WHEN json_valid({json_sql}) THEN json_extract({json_sql}, '{path}') END"


# v5: full-text search over the archive (`recall` with a query).
# - archive_docs gives each archived original an integer id (the FTS row id: the archive's own
#   rowid may change on VACUUM) and keeps its role and tool name for the result lines.
# - archive_fts is FTS5, unicode61 with diacritics removed, over the text above and the session:
#   "s" and the id's UTF-8 in hex, one token, so a search is narrowed to one session inside the
#   index. (An external-content view would save the copy of the text, but FTS5 cannot read a view
#   that uses json_each.)
# Triggers keep both in step with the archive in the same transaction as the archive write,
# whichever connection makes it; the last two statements index what older versions archived.
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
        VALUES (new.session_id, new.ref, COALESCE({_field("new.json", "$.role")}, ''),
                {_field("new.json", "$.name")});
        INSERT INTO archive_fts (rowid, session, body)
        VALUES (last_insert_rowid(), 's' || hex(new.session_id), {_text_of("new.json")});
    END
    """,
    """
    CREATE TRIGGER archive_index_delete AFTER DELETE ON archive BEGIN
        DELETE FROM archive_fts
         WHERE rowid = (SELECT id FROM archive_docs WHERE session_id = old.session_id AND ref = old.ref);
        DELETE FROM archive_docs WHERE session_id = old.session_id AND ref = old.ref;
    END
    """,
    f"""
    INSERT INTO archive_docs (session_id, ref, role, tool)
    SELECT session_id, ref, COALESCE({_field("json", "$.role")}, ''), {_field("json", "$.name")}
    FROM archive ORDER BY rowid
    """,
    f"""
    INSERT INTO archive_fts (rowid, session, body)
    SELECT d.id, 's' || hex(d.session_id), {_text_of("a.json")}
    FROM archive_docs d JOIN archive a ON a.session_id = d.session_id AND a.ref = d.ref
    """,
]

# v6: the context window a provider stated in an overflow error, per session and model, so a
# session continued in a new process starts from it instead of overflowing again (see windows.py).
_V6 = [
    """
    CREATE TABLE learned_windows (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        tokens INTEGER NOT NULL CHECK (tokens > 0),
        learned_at REAL NOT NULL,
        PRIMARY KEY (session_id, model)
    )
    """,
]

# v7: our own estimate of each turn request beside the provider's count, so a new process starts
# with the calibration the session learned (agent/request_size.py). NULL: not a turn request, or a
# row recorded before v7.
_V7 = [
    "ALTER TABLE usage ADD COLUMN estimated_tokens INTEGER",
]

# v8: the session's turns as /rewind lists them, and the file snapshots taken around the tools of each
# (see turn_log.py). A turn's messages are kept as references to the transcript and the archive, not
# copied; the snapshots are commits in the project's shadow repository (shadow_repo.py).
_V8 = [
    """
    CREATE TABLE turns (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        turn INTEGER NOT NULL,
        at REAL NOT NULL,
        text TEXT NOT NULL,
        base INTEGER,
        refs TEXT NOT NULL,
        undone_at REAL,
        PRIMARY KEY (session_id, turn)
    )
    """,
    """
    CREATE TABLE snapshots (
        session_id TEXT NOT NULL,
        turn INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('before', 'after')),
        tool TEXT,
        commit_id TEXT NOT NULL,
        project TEXT NOT NULL,
        paths TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (session_id, turn, seq),
        FOREIGN KEY (session_id, turn) REFERENCES turns(session_id, turn) ON DELETE CASCADE
    )
    """,
]

# v9: the session's mode (default | accept-edits | plan, see agent/modes.py): state, not transcript, so it
# survives --continue, /resume and every compaction. NULL: default (or recorded before v9).
_V9 = [
    "ALTER TABLE sessions ADD COLUMN mode TEXT",
]

# v10: a compaction's trigger is checked by the code (compactions.TRIGGERS), not by a list frozen in the
# table: v1 allowed only preflight, reactive and manual, and a new trigger (agent: the model asked with the
# `context` tool) would need a table rebuild each time. SQLite cannot change a CHECK in place, so the table
# is rebuilt once, its rows and ids kept, with only "not empty" left to the database.
_V10 = [
    """
    CREATE TABLE compactions_v10 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        at REAL NOT NULL,
        trigger TEXT NOT NULL CHECK (trigger <> ''),
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
    """
    INSERT INTO compactions_v10 (id, session_id, at, trigger, focus, tokens_before, tokens_after,
                                 messages_before, messages_after, fallback, aborted, summary, error)
    SELECT id, session_id, at, trigger, focus, tokens_before, tokens_after,
           messages_before, messages_after, fallback, aborted, summary, error
    FROM compactions
    """,
    "DROP TABLE compactions",
    "ALTER TABLE compactions_v10 RENAME TO compactions",
    "CREATE INDEX compactions_session ON compactions(session_id, id)",
]

# v11: a learned window belongs to the model, not to the session that learned it (see windows.py): a `-p`
# run whose first request overflowed keeps no session, and the next run must not overflow to learn it again.
# Each model keeps the window it was last told, whichever session heard it.
_V11 = [
    """
    CREATE TABLE model_windows (
        model TEXT PRIMARY KEY,
        tokens INTEGER NOT NULL CHECK (tokens > 0),
        learned_at REAL NOT NULL
    )
    """,
    """
    INSERT INTO model_windows (model, tokens, learned_at)
    SELECT model, tokens, learned_at FROM learned_windows w
    WHERE learned_at = (SELECT MAX(learned_at) FROM learned_windows WHERE model = w.model)
    GROUP BY model
    """,
    "DROP TABLE learned_windows",
]

MIGRATIONS: list[list[str]] = [_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10, _V11]
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
