"""Sessions in SQLite: transcripts, compaction records and the archive of pruned originals.

One database file (WAL mode) holds every session. A transcript is a sequence
of messages in a *generation*: messages are appended one at a time and each
append is committed at once, so a killed process loses at most the message it
was writing. A compaction writes the rewritten transcript as a new generation
in one transaction, so a crash leaves either the old transcript or the new
one, never a mix; the originals it removed live on in the archive, where the
`recall` tool finds them by reference id.

Messages are stored as JSON with every key, `_`-private bookkeeping included,
so a restored session compresses exactly as the live one would. Loading
repairs what a crash can leave behind: a tool call whose result was never
written gets a stub result, and nothing orphaned reaches the provider.

Calls may come from several asyncio tasks (and threads): one connection,
`check_same_thread=False`, guarded by a lock. Several processes may share the
file; SQLite's locking and the busy timeout serialize them.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hermeslite.context.messages import Message, call_id, tool_calls_of
from hermeslite.context.result import CompressionResult
from hermeslite.paths import data_dir, ensure_dir

from . import usage
from .recall import RecallTool
from .schema import SCHEMA_VERSION, SchemaTooNew, migrate
from .transcript import INTERRUPTED_TOOL_TEXT, dumps_message, repair_transcript, title_from
from .usage import UsageRecord

__all__ = [
    "CompactionRecord",
    "INTERRUPTED_TOOL_TEXT",
    "RecallTool",
    "SCHEMA_VERSION",
    "SchemaTooNew",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "default_sessions_path",
    "repair_transcript",
]

DB_NAME = "sessions.db"
TRIGGERS = ("preflight", "reactive", "manual")
BUSY_TIMEOUT_S = 10.0


class SessionNotFound(LookupError):
    """No session (or more than one) matches an id; `str()` is the message for the user."""


def default_sessions_path() -> Path:
    return data_dir() / DB_NAME


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str | None        # given at creation, else the first user message, trimmed
    created_at: float        # unix seconds
    updated_at: float        # unix seconds; the last append or rewrite
    message_count: int       # messages in the current transcript
    model: str | None
    cwd: str | None


@dataclass
class CompactionRecord:
    trigger: str                     # preflight | reactive | manual
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    focus: str | None = None
    fallback: bool = False
    aborted: bool = False
    summary: str | None = None
    error: str | None = None
    at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.trigger not in TRIGGERS:
            raise ValueError(f"compaction trigger must be one of {', '.join(TRIGGERS)}, got {self.trigger!r}")

    @classmethod
    def from_result(cls, result: CompressionResult, trigger: str) -> "CompactionRecord":
        return cls(
            trigger=trigger,
            tokens_before=result.tokens_before,
            tokens_after=result.tokens_after,
            messages_before=result.messages_before,
            messages_after=result.messages_after,
            focus=result.focus_topic,
            fallback=result.fallback_used,
            aborted=result.aborted,
            summary=result.summary,
            error=result.error,
        )


def _new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class SessionStore:
    """All sessions in one SQLite file. Open once per process; `close()` when done."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        memory = str(path) == ":memory:"
        if not memory:
            ensure_dir(self.path.parent)
        fresh = not memory and not self.path.exists()
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
        )
        try:
            if fresh:
                with contextlib.suppress(OSError):
                    os.chmod(self.path, 0o600)  # transcripts can hold pasted secrets
            self.journal_mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            # WAL + NORMAL survives a killed process (the promise: kill -9 loses at most the
            # in-flight message) without an fsync per message; only a power cut can lose the tail.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self.schema_version = migrate(self._conn, str(path))
        except BaseException:
            self._conn.close()
            raise

    # ------------------------------------------------------------------ plumbing

    def close(self) -> None:
        with self._lock:
            with contextlib.suppress(sqlite3.ProgrammingError):
                self._conn.close()

    def __enter__(self) -> "SessionStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; committed on success, rolled back on any error."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    @staticmethod
    def _generation(conn: sqlite3.Connection, session_id: str) -> int:
        row = conn.execute("SELECT transcript_generation FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionNotFound(f"no session with id {session_id!r}")
        return row[0]

    # ------------------------------------------------------------------ sessions

    def create_session(self, model: str | None, cwd: str | Path | None, title: str | None = None) -> str:
        now = time.time()
        for _ in range(10):
            session_id = _new_id()
            try:
                with self._tx() as conn:
                    conn.execute(
                        "INSERT INTO sessions (id, created_at, updated_at, title, model, cwd) VALUES (?, ?, ?, ?, ?, ?)",
                        (session_id, now, now, title, model, None if cwd is None else str(cwd)),
                    )
                return session_id
            except sqlite3.IntegrityError:
                continue  # same second, same random suffix: try another
        raise RuntimeError("could not allocate a unique session id")

    _INFO_SQL = """
        SELECT s.id, s.title, s.created_at, s.updated_at,
               (SELECT COUNT(*) FROM messages m
                 WHERE m.session_id = s.id AND m.generation = s.transcript_generation),
               s.model, s.cwd
        FROM sessions s
    """

    def list_sessions(self, limit: int = 50) -> list[SessionInfo]:
        """Newest first."""
        rows = self._query(self._INFO_SQL + " ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?", (limit,))
        return [SessionInfo(*row) for row in rows]

    def get_session(self, session_id: str) -> SessionInfo | None:
        rows = self._query(self._INFO_SQL + " WHERE s.id = ?", (session_id,))
        return SessionInfo(*rows[0]) if rows else None

    def latest_session_id(self, cwd: str | Path | None = None) -> str | None:
        """The most recently updated session, optionally only among those started in `cwd`."""
        if cwd is None:
            rows = self._query("SELECT id FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT 1")
        else:
            rows = self._query(
                "SELECT id FROM sessions WHERE cwd = ? ORDER BY updated_at DESC, rowid DESC LIMIT 1", (str(cwd),)
            )
        return rows[0][0] if rows else None

    def resolve_id(self, prefix: str) -> str:
        """The one session whose id is `prefix` or starts with it; SessionNotFound otherwise."""
        prefix = (prefix or "").strip()
        if not prefix:
            raise SessionNotFound("no session id given")
        if self._query("SELECT 1 FROM sessions WHERE id = ?", (prefix,)):
            return prefix
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._query(
            "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY updated_at DESC", (escaped + "%",)
        )
        ids = [row[0] for row in rows if row[0].startswith(prefix)]  # LIKE ignores ASCII case
        if not ids:
            raise SessionNotFound(f"no session matches {prefix!r} (hermeslite --list shows them)")
        if len(ids) > 1:
            shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            raise SessionNotFound(f"{prefix!r} matches {len(ids)} sessions ({shown}); give more of the id")
        return ids[0]

    def delete_session(self, session_id: str) -> bool:
        with self._tx() as conn:
            return conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    def set_title(self, session_id: str, title: str | None) -> None:
        with self._tx() as conn:
            self._generation(conn, session_id)
            conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))

    # ------------------------------------------------------------------ transcript

    def append_message(self, session_id: str, message: Message) -> None:
        """Add one message to the current transcript, committed before returning."""
        now = time.time()
        with self._tx() as conn:
            generation = self._generation(conn, session_id)
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM messages WHERE session_id = ? AND generation = ?",
                (session_id, generation),
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO messages (session_id, generation, seq, role, json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, generation, seq, str(message.get("role", "")), dumps_message(message), now),
            )
            conn.execute(
                "UPDATE sessions SET updated_at = ?, title = COALESCE(title, ?) WHERE id = ?",
                (now, title_from(message), session_id),
            )

    def replace_transcript(self, session_id: str, messages: list[Message]) -> int:
        """Write `messages` as the new current transcript (after a compaction); returns its generation."""
        with self._tx() as conn:
            return self._replace(conn, session_id, messages)

    def _replace(self, conn: sqlite3.Connection, session_id: str, messages: list[Message]) -> int:
        now = time.time()
        generation = self._generation(conn, session_id) + 1
        conn.executemany(
            "INSERT INTO messages (session_id, generation, seq, role, json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [(session_id, generation, seq, str(m.get("role", "")), dumps_message(m), now) for seq, m in enumerate(messages)],
        )
        title = next((t for t in map(title_from, messages) if t), None)
        conn.execute(
            "UPDATE sessions SET transcript_generation = ?, updated_at = ?, title = COALESCE(title, ?) WHERE id = ?",
            (generation, now, title, session_id),
        )
        # The originals a compaction removed are in the archive; older generations are not needed.
        conn.execute("DELETE FROM messages WHERE session_id = ? AND generation < ?", (session_id, generation))
        return generation

    def apply_compaction(
        self,
        session_id: str,
        messages: list[Message],
        archived: dict[str, Message] | None = None,
        record: CompactionRecord | None = None,
    ) -> int:
        """Archive the originals, write the new transcript and log the record, all in one transaction."""
        with self._tx() as conn:
            generation = self._replace(conn, session_id, messages)
            self._archive(conn, session_id, archived or {})
            if record is not None:
                self._record(conn, session_id, record)
            return generation

    def load_transcript(self, session_id: str) -> list[Message]:
        """The current transcript, repaired so a provider accepts it (see `repair_transcript`)."""
        with self._lock:
            generation = self._generation(self._conn, session_id)
            rows = self._conn.execute(
                "SELECT json FROM messages WHERE session_id = ? AND generation = ? ORDER BY seq",
                (session_id, generation),
            ).fetchall()
        return repair_transcript([json.loads(row[0]) for row in rows])

    def generation(self, session_id: str) -> int:
        with self._lock:
            return self._generation(self._conn, session_id)

    # ------------------------------------------------------------------ compactions

    def record_compaction(self, session_id: str, record: CompactionRecord) -> int:
        with self._tx() as conn:
            return self._record(conn, session_id, record)

    def _record(self, conn: sqlite3.Connection, session_id: str, r: CompactionRecord) -> int:
        self._generation(conn, session_id)
        cursor = conn.execute(
            """INSERT INTO compactions (session_id, at, trigger, focus, tokens_before, tokens_after,
                   messages_before, messages_after, fallback, aborted, summary, error)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (session_id, r.at, r.trigger, r.focus, r.tokens_before, r.tokens_after, r.messages_before,
             r.messages_after, int(r.fallback), int(r.aborted), r.summary, r.error),
        )
        return int(cursor.lastrowid or 0)

    def compactions(self, session_id: str) -> list[CompactionRecord]:
        """Oldest first."""
        rows = self._query(
            """SELECT trigger, tokens_before, tokens_after, messages_before, messages_after, focus,
                      fallback, aborted, summary, error, at
               FROM compactions WHERE session_id = ? ORDER BY id""",
            (session_id,),
        )
        return [
            CompactionRecord(t, tb, ta, mb, ma, focus, bool(fb), bool(ab), summary, error, at)
            for t, tb, ta, mb, ma, focus, fb, ab, summary, error, at in rows
        ]

    # ------------------------------------------------------------------ usage

    def record_usage(self, session_id: str, record: UsageRecord) -> None:
        with self._tx() as conn:
            self._generation(conn, session_id)
            usage.insert(conn, session_id, record)

    def usage(self, session_id: str) -> list[UsageRecord]:
        """Every request's usage in this session, oldest first."""
        with self._lock:
            return usage.select(self._conn, session_id)

    # ------------------------------------------------------------------ archive

    def archive(self, session_id: str, archived: dict[str, Message]) -> None:
        """Keep originals by reference id; an id already stored keeps its first (true) original."""
        if not archived:
            return
        with self._tx() as conn:
            self._archive(conn, session_id, archived)

    def _archive(self, conn: sqlite3.Connection, session_id: str, archived: dict[str, Message]) -> None:
        self._generation(conn, session_id)
        now = time.time()
        conn.executemany(
            "INSERT OR IGNORE INTO archive (session_id, ref, json, created_at) VALUES (?, ?, ?, ?)",
            [(session_id, ref, dumps_message(msg), now) for ref, msg in archived.items()],
        )

    def recall(self, session_id: str, ref: str) -> Message | None:
        rows = self._query("SELECT json FROM archive WHERE session_id = ? AND ref = ?", (session_id, ref))
        return json.loads(rows[0][0]) if rows else None

    def find_tool_call(self, session_id: str, tool_call_id: str) -> dict | None:
        """The assistant tool call with this id, from the current transcript or the archive."""
        if not tool_call_id:
            return None
        pattern = "%" + json.dumps(tool_call_id, ensure_ascii=False)[1:-1].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._query(
            """SELECT m.json FROM messages m JOIN sessions s ON s.id = m.session_id
                 WHERE m.session_id = ? AND m.generation = s.transcript_generation
                   AND m.role = 'assistant' AND m.json LIKE ? ESCAPE '\\'
               UNION ALL
               SELECT json FROM archive WHERE session_id = ? AND json LIKE ? ESCAPE '\\'""",
            (session_id, pattern, session_id, pattern),
        )
        for (text,) in rows:
            for call in tool_calls_of(json.loads(text)):
                if call_id(call) == tool_call_id:
                    return call
        return None

    # ------------------------------------------------------------------ todos

    def save_todos(self, session_id: str, todos_json: str | None) -> None:
        with self._tx() as conn:
            self._generation(conn, session_id)
            conn.execute("UPDATE sessions SET todos = ? WHERE id = ?", (todos_json, session_id))

    def load_todos(self, session_id: str) -> str | None:
        rows = self._query("SELECT todos FROM sessions WHERE id = ?", (session_id,))
        return rows[0][0] if rows else None
