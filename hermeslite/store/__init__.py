"""Persistence: SQLite sessions (transcripts, compactions, archive), MEMORY.md/USER.md, todos."""

from .errors import StoreError
from .memory import MemoryResult, MemoryStore
from .sessions import CompactionRecord, SessionBusy, SessionInfo, SessionNotFound, SessionStore, default_sessions_path
from .todos import TodoError, TodoItem, TodoList, attach_snapshot, strip_snapshots

__all__ = [
    "CompactionRecord",
    "MemoryResult",
    "MemoryStore",
    "SessionBusy",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "StoreError",
    "TodoError",
    "TodoItem",
    "TodoList",
    "attach_snapshot",
    "default_sessions_path",
    "strip_snapshots",
]
