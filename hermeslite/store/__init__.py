"""Persistence: SQLite sessions (transcripts, compactions, archive), MEMORY.md/USER.md, todos."""

from .errors import StoreError
from .memory import MemoryResult, MemoryStore, MemoryTool
from .recall import RecallTool
from .sessions import CompactionRecord, SessionBusy, SessionInfo, SessionNotFound, SessionStore, default_sessions_path
from .todos import TodoError, TodoItem, TodoList, TodoTool, attach_snapshot, strip_snapshots

__all__ = [
    "CompactionRecord",
    "MemoryResult",
    "MemoryStore",
    "MemoryTool",
    "RecallTool",
    "SessionBusy",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "StoreError",
    "TodoError",
    "TodoItem",
    "TodoList",
    "TodoTool",
    "attach_snapshot",
    "default_sessions_path",
    "strip_snapshots",
]
