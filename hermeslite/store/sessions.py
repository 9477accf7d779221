"""Sessions in SQLite: transcripts, compaction records and the archive of pruned originals.

One database file (WAL mode) holds every session. A transcript is a sequence
of messages in a *generation*: messages are appended one at a time and each
append is committed at once, so a killed process loses at most the message it
was writing. A compaction writes the rewritten transcript as a new generation
in one transaction, so a crash leaves either the old transcript or the new
one, never a mix; the originals it removed live on in the archive, where the
`recall` tool finds them by reference id or by a full-text search whose index
triggers keep in the same transaction as the archive (see archive_search.py).

Messages are stored as JSON with every key, `_`-private bookkeeping included,
so a restored session compresses exactly as the live one would. Loading
repairs what a crash can leave behind: a tool call whose result was never
written gets a stub result, and nothing orphaned reaches the provider.

Calls may come from several asyncio tasks (and threads): one connection,
`check_same_thread=False`, guarded by a lock. Several processes may share the
file; SQLite's locking and the busy timeout serialize their writes, and each
session has one writer: a store claims a session (see `locks.py`) before its
first write to it, so a second process gets a clear "in use" error instead of
interleaving or undoing the first one's turns.

Faults reach callers as `StoreError`s with one line for the user (see
`errors.py`). Once a database shows damage, the store refuses every further
write to it.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from pathlib import Path

from hermeslite.context.messages import Message
from hermeslite.paths import data_dir

from . import archive_search, generations, listing, rewrites, turn_log, undo, usage, windows
from .archive import fetch_original, insert_originals, originals_of, tool_call_by_id
from .archive_search import ArchiveHit
from .compactions import SELECT_RECORDS, CompactionRecord, insert_record
from .database import Database
from .errors import StoreError
from .hook_transcript import remove_transcript
from .listing import SessionInfo, SessionNotFound
from .locks import SessionBusy
from .schema import SCHEMA_VERSION, SchemaTooNew
from .transcript import (
    INTERRUPTED_TOOL_TEXT,
    NO_SAVED_REPLY,
    RestoredTranscript,
    dumps_message,
    referenced_ids,
    repair_transcript,
    restore_rows,
    title_from,
)
from .undo import NothingToUndo, Undone, UndoPoint
from .usage import UsageRecord

__all__ = [
    "INTERRUPTED_TOOL_TEXT",
    "NO_SAVED_REPLY",
    "SCHEMA_VERSION",
    "ArchiveHit",
    "CompactionRecord",
    "NothingToUndo",
    "RestoredTranscript",
    "SchemaTooNew",
    "SessionBusy",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "StoreError",
    "Undone",
    "default_sessions_path",
    "repair_transcript",
]

DB_NAME = "sessions.db"


def default_sessions_path() -> Path:
    return data_dir() / DB_NAME


def _new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class SessionStore:
    """All sessions in one SQLite file. Open once per process; `close()` when done."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._db = Database(self.path)
        self.journal_mode = self._db.journal_mode
        self.schema_version = self._db.schema_version
        self._tx = self._db.transaction
        self._query = self._db.query
        self.turn_log = turn_log.TurnLog(self._db)  # turns and their file snapshots (/rewind, /undo, /diff)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def claim(self, session_id: str) -> None:
        """Make this store the session's one writer until `release` or `close`.

        Every write claims its session first; calling this when opening a session
        makes "in use by pid N" (SessionBusy) come before anything else happens.
        """
        self._db.claim(session_id)

    def release(self, session_id: str) -> None:
        """Let another process open the session (this store claims it again on its next write)."""
        self._db.release(session_id)

    @staticmethod
    def _generation(conn: sqlite3.Connection, session_id: str) -> int:
        row = conn.execute("SELECT transcript_generation FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionNotFound(f"no session with id {session_id!r}")
        return row[0]

    # ------------------------------------------------------------------ sessions

    def create_session(
        self,
        model: str | None,
        cwd: str | Path | None,
        title: str | None = None,
        api_base: str | None = None,
        parent_id: str | None = None,
    ) -> str:
        """A new session, claimed by this store (see `claim`); `parent_id`: the one it was handed off from."""
        now = time.time()
        for _ in range(10):
            session_id = _new_id()
            try:
                with self._tx(session_id) as conn:
                    conn.execute(
                        "INSERT INTO sessions (id, created_at, updated_at, title, model, cwd, api_base, parent_id)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (session_id, now, now, title, model, None if cwd is None else str(cwd), api_base, parent_id),
                    )
                return session_id
            except (sqlite3.IntegrityError, SessionBusy):
                self.release(session_id)
                continue  # same second, same random suffix: try another
        raise RuntimeError("could not allocate a unique session id")

    def set_model(self, session_id: str, model: str | None, api_base: str | None) -> None:
        """Record the model and endpoint the session continues with, for the next --continue."""
        with self._tx(session_id) as conn:
            self._generation(conn, session_id)
            conn.execute("UPDATE sessions SET model = ?, api_base = ? WHERE id = ?", (model, api_base, session_id))

    def list_sessions(self, limit: int = 50) -> list[SessionInfo]:
        """Newest first."""
        return listing.list_sessions(self._query, limit)

    def get_session(self, session_id: str) -> SessionInfo | None:
        return listing.get_session(self._query, session_id)

    def latest_session_id(self, cwd: str | Path | None = None) -> str | None:
        """The most recently updated session, optionally only among those started in `cwd`."""
        return listing.latest_session_id(self._query, cwd)

    def resolve_id(self, prefix: str) -> str:
        """The one session whose id is `prefix` or starts with it; SessionNotFound otherwise."""
        return listing.resolve_id(self._query, prefix)

    def delete_session(self, session_id: str) -> bool:
        """Delete a session nobody else has open; SessionBusy otherwise."""
        with self._tx(session_id) as conn:
            deleted = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0
        self.release(session_id)
        remove_transcript(session_id)  # the copy hooks read goes with the session
        return deleted

    # ------------------------------------------------------------------ transcript

    def append_message(self, session_id: str, message: Message) -> None:
        """Add one message to the current transcript, committed before returning."""
        now = time.time()
        with self._tx(session_id) as conn:
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
        """Write `messages` as the new current transcript; returns its generation. Not undoable
        (a compaction is written by `apply_compaction`)."""
        with self._tx(session_id) as conn:
            return self._replace(conn, session_id, messages)

    def _replace(
        self, conn: sqlite3.Connection, session_id: str, messages: list[Message], *, undoable: bool = False
    ) -> int:
        """The new generation; with `undoable` the one before it becomes the undo point (see undo.py)."""
        rows = [(str(m.get("role", "")), dumps_message(m)) for m in messages]
        title = next((t for t in map(title_from, messages) if t), None)
        return generations.write(conn, session_id, self._generation(conn, session_id), rows, title, undoable=undoable)

    def apply_compaction(
        self,
        session_id: str,
        messages: list[Message],
        archived: dict[str, Message] | None = None,
        record: CompactionRecord | None = None,
    ) -> int:
        """Archive the originals, write the new transcript and log the record, all in one transaction.

        The transcript it replaces becomes the session's undo point (see undo.py).
        """
        with self._tx(session_id) as conn:
            generation = self._replace(conn, session_id, messages, undoable=True)
            self._archive(conn, session_id, archived or {})
            if record is not None:
                self._record(conn, session_id, record)
            return generation

    def load_transcript(self, session_id: str) -> list[Message]:
        """The current transcript, repaired so a provider accepts it (see `open_transcript`)."""
        return self.open_transcript(session_id).messages

    def open_transcript(self, session_id: str) -> RestoredTranscript:
        """The current transcript, repaired (see `repair_transcript`), skipping rows that are not messages."""
        with self._db.lock:
            generation = self._generation_read(session_id)
            rows = self._query(
                "SELECT seq, json FROM messages WHERE session_id = ? AND generation = ? ORDER BY seq",
                (session_id, generation),
            )
        return restore_rows(session_id, rows)

    def generation(self, session_id: str) -> int:
        return self._generation_read(session_id)

    # ------------------------------------------------------------------ undo, edit, handoff

    def undo_compaction(self, session_id: str) -> Undone:
        """Bring back the transcript before the latest compaction, then the messages added since.

        Raises NothingToUndo (its text is the line for the user) when there is
        no undo point. Afterwards there is none: no undo of an undo.
        """
        with self._tx(session_id) as conn:
            current = self._generation(conn, session_id)
            rows, done = undo.restore(conn, session_id, current)
            generations.write(conn, session_id, current, rows, None, undoable=False)
        return done

    def rewind_transcript(
        self, session_id: str, messages: list[Message], dropped: dict[str, Message], turn: int
    ) -> None:
        """The conversation as it was before `turn`, in one transaction: `messages` become the transcript,
        the messages it drops are archived (so recall still finds them), and turn `turn` and every later
        one leave the turn log."""
        with self._tx(session_id) as conn:
            self._replace(conn, session_id, messages)
            self._archive(conn, session_id, dropped)
            turn_log.drop_from(conn, session_id, turn)

    def originals(self, session_id: str, refs: list[str]) -> dict[str, Message]:
        """The archived originals of `refs` that the archive holds, by reference id."""
        return originals_of(self._query, session_id, refs)

    def undo_point(self, session_id: str) -> UndoPoint | None:
        with self._db.lock:
            return undo.point(self._db.conn, session_id)

    def replace_checkpoint(self, session_id: str, message: Message) -> None:
        """Put `message` where the newest checkpoint of the current transcript is stored (an edit of it)."""
        with self._tx(session_id) as conn:
            rewrites.replace_checkpoint_row(conn, session_id, self._generation(conn, session_id), message)

    def seed_session(
        self, session_id: str, messages: list[Message], archived: dict[str, Message], parent_id: str
    ) -> None:
        """Write a handed-off session's first transcript, with the originals its placeholders and
        checkpoint point to: those this handoff archived, and those of `parent_id` still referenced."""
        with self._tx(session_id) as conn:
            self._replace(conn, session_id, messages)
            inherited = rewrites.inherited_originals(conn, parent_id, referenced_ids(messages) - set(archived))
            self._archive(conn, session_id, {**inherited, **archived})

    def _generation_read(self, session_id: str) -> int:
        rows = self._query("SELECT transcript_generation FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise SessionNotFound(f"no session with id {session_id!r}")
        return rows[0][0]

    # ------------------------------------------------------------------ compactions

    def record_compaction(self, session_id: str, record: CompactionRecord) -> int:
        with self._tx(session_id) as conn:
            return self._record(conn, session_id, record)

    def _record(self, conn: sqlite3.Connection, session_id: str, record: CompactionRecord) -> int:
        self._generation(conn, session_id)
        return insert_record(conn, session_id, record)

    def compactions(self, session_id: str) -> list[CompactionRecord]:
        """Oldest first."""
        return [CompactionRecord.from_row(row) for row in self._query(SELECT_RECORDS, (session_id,))]

    # ------------------------------------------------------------------ usage

    def record_usage(self, session_id: str, record: UsageRecord) -> None:
        with self._tx(session_id) as conn:
            self._generation(conn, session_id)
            usage.insert(conn, session_id, record)

    def usage(self, session_id: str) -> list[UsageRecord]:
        """Every request's usage in this session, oldest first."""
        with self._db.lock:
            return usage.select(self._db.conn, session_id)

    # ------------------------------------------------------------------ learned windows

    def remember_window(self, model: str, tokens: int) -> None:
        """Keep the window a provider stated for `model`, for every later session on it (see windows.py)."""
        with self._tx() as conn:
            windows.remember(conn, model, tokens)

    def learned_window(self, model: str) -> int | None:
        """The window a provider last stated for `model` (under any spelling of its name), or None."""
        return windows.window_of(self._query(windows.SELECT_WINDOWS), model)

    # ------------------------------------------------------------------ archive

    def archive(self, session_id: str, archived: dict[str, Message]) -> None:
        """Keep originals by reference id; an id already stored keeps its first (true) original."""
        if not archived:
            return
        with self._tx(session_id) as conn:
            self._archive(conn, session_id, archived)

    def _archive(self, conn: sqlite3.Connection, session_id: str, archived: dict[str, Message]) -> None:
        self._generation(conn, session_id)
        insert_originals(conn, session_id, archived)

    def recall(self, session_id: str, ref: str) -> Message | None:
        return fetch_original(self._query, session_id, ref)

    def search_archive(self, session_id: str, text: str, limit: int = 5) -> list[ArchiveHit]:
        """The session's archived originals that best match `text`, best first (see archive_search.py)."""
        return archive_search.search(self._query, session_id, text, limit)

    def archived_count(self, session_id: str) -> int:
        return archive_search.count_archived(self._query, session_id)

    def archive_size(self, session_id: str) -> tuple[int, int]:
        """(originals, characters) the session's archive holds: what the `context` tool reports."""
        return archive_search.archive_size(self._query, session_id)

    def find_tool_call(self, session_id: str, tool_call_id: str) -> dict | None:
        """The assistant tool call with this id, from the current transcript or the archive."""
        return tool_call_by_id(self._query, session_id, tool_call_id)

    # ------------------------------------------------------------------ todos

    def save_todos(self, session_id: str, todos_json: str | None) -> None:
        with self._tx(session_id) as conn:
            self._generation(conn, session_id)
            conn.execute("UPDATE sessions SET todos = ? WHERE id = ?", (todos_json, session_id))

    def load_todos(self, session_id: str) -> str | None:
        rows = self._query("SELECT todos FROM sessions WHERE id = ?", (session_id,))
        return rows[0][0] if rows else None

    # ------------------------------------------------------------------ mode

    def save_mode(self, session_id: str, mode: str) -> None:
        """Record the session's mode (agent/modes.py)."""
        with self._tx(session_id) as conn:
            self._generation(conn, session_id)
            conn.execute("UPDATE sessions SET mode = ? WHERE id = ?", (mode, session_id))

    def load_mode(self, session_id: str) -> str | None:
        """The session's recorded mode; None when it never left the default."""
        rows = self._query("SELECT mode FROM sessions WHERE id = ?", (session_id,))
        return rows[0][0] if rows else None
