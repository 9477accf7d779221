"""The rows of a session listing: which saved sessions, in what order, and what each shows.

`hermeslite sessions`, the /sessions view and the /resume picker all list
saved sessions. They take their rows from here, so the three show the same
sessions in the same order with the same facts; only the drawing differs
(commands/session_table.py lays the rows out for every front end). The front
ends do not reach the store: the command line hands over the store it opened,
a running agent its own (`Agent.list_sessions`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hermeslite.store.sessions import SessionStore

LISTED = 50  # the most recent sessions a listing shows


@dataclass(frozen=True)
class SessionRow:
    """One saved session as a listing shows it."""

    id: str
    title: str | None  # None: no user message yet
    updated_at: float  # unix seconds of the last append or rewrite
    message_count: int  # messages in the current transcript
    model: str | None
    parent_id: str | None  # the session this one was handed off from
    context_tokens: int | None  # what its latest turn request carried; None before one
    current: bool  # the session open in this front end


def session_rows(store: SessionStore, current: str | None = None, limit: int = LISTED) -> list[SessionRow]:
    """The `limit` most recently active sessions, newest first; `current` marks the open one."""
    return [
        SessionRow(
            id=info.id,
            title=info.title,
            updated_at=info.updated_at,
            message_count=info.message_count,
            model=info.model,
            parent_id=info.parent_id,
            context_tokens=info.last_prompt_tokens,
            current=info.id == current,
        )
        for info in store.list_sessions(limit)
    ]
