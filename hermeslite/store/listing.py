"""Which sessions exist: the listing, one session's info, the latest one, an id from a prefix.

Read-only queries over the `sessions` table, kept apart from the writes in
sessions.py; `SessionStore` runs them through its query runner (its lock and
error handling) and stays the one entry point callers use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .database import RunSQL


class SessionNotFound(LookupError):
    """No session (or more than one) matches an id; `str()` is the message for the user."""


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str | None  # given at creation, else the first user message, trimmed
    created_at: float  # unix seconds
    updated_at: float  # unix seconds; the last append or rewrite
    message_count: int  # messages in the current transcript
    model: str | None
    cwd: str | None
    api_base: str | None  # the server it talks to; None: the provider's own (or recorded before v3)
    parent_id: str | None = None  # the session this one was handed off from (/handoff)
    last_prompt_tokens: int | None = None  # input of the session's latest turn request; None before one


_INFO_SQL = """
    SELECT s.id, s.title, s.created_at, s.updated_at,
           (SELECT COUNT(*) FROM messages m
             WHERE m.session_id = s.id AND m.generation = s.transcript_generation),
           s.model, s.cwd, s.api_base, s.parent_id,
           (SELECT u.prompt_tokens FROM usage u
             WHERE u.session_id = s.id AND u.kind = 'turn' ORDER BY u.id DESC LIMIT 1)
    FROM sessions s
"""


def list_sessions(query: RunSQL, limit: int) -> list[SessionInfo]:
    """Newest first."""
    rows = query(_INFO_SQL + " ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?", (limit,))
    return [SessionInfo(*row) for row in rows]


def get_session(query: RunSQL, session_id: str) -> SessionInfo | None:
    rows = query(_INFO_SQL + " WHERE s.id = ?", (session_id,))
    return SessionInfo(*rows[0]) if rows else None


def latest_session_id(query: RunSQL, cwd: str | Path | None) -> str | None:
    """The most recently updated session, optionally only among those started in `cwd`."""
    if cwd is None:
        rows = query("SELECT id FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT 1", ())
    else:
        rows = query("SELECT id FROM sessions WHERE cwd = ? ORDER BY updated_at DESC, rowid DESC LIMIT 1", (str(cwd),))
    return rows[0][0] if rows else None


def resolve_id(query: RunSQL, prefix: str) -> str:
    """The one session whose id is `prefix` or starts with it; SessionNotFound otherwise."""
    prefix = (prefix or "").strip()
    if not prefix:
        raise SessionNotFound("no session id given (`hermeslite sessions` lists them)")
    if query("SELECT 1 FROM sessions WHERE id = ?", (prefix,)):
        return prefix
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = query("SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY updated_at DESC", (escaped + "%",))
    ids = [row[0] for row in rows if row[0].startswith(prefix)]  # LIKE ignores ASCII case
    if not ids:
        raise SessionNotFound(f"no session matches {prefix!r} (`hermeslite sessions` lists them)")
    if len(ids) > 1:
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        raise SessionNotFound(f"{prefix!r} matches {len(ids)} sessions ({shown}); give more of the id")
    return ids[0]
