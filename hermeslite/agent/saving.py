"""Saving the agent's transcript, so that a failed write costs the save, never the conversation.

A full disk, a damaged database or a lock held too long must not end a turn
whose reply is already on the screen. Every change (an appended message, a
compaction's rewrite, a compaction record, a request's usage) is queued and
written in order;
when a write fails, the user hears it once, the conversation goes on in
memory, and the queue is retried with the next change. Writing in order
keeps the saved session a valid prefix of the live one: a later message is
never saved without the ones before it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

from hermeslite.store.sessions import CompactionRecord, SessionStore, StoreError
from hermeslite.store.usage import UsageRecord

from . import events as ev

Write = Callable[[], object]


class SessionSaver:
    """The one path from an agent's transcript to its session in the store."""

    def __init__(self, store: SessionStore, session_id: str, emit: Callable[[ev.Event], None]) -> None:
        self.store = store
        self.session_id = session_id
        self.emit = emit
        self._queue: deque[Write] = deque()
        self._failing = False
        self._model: tuple[str, str | None] | None = None  # in use, not recorded until a request is answered

    @property
    def saved(self) -> bool:
        """Whether everything the agent has so far is in the store."""
        return not self._queue

    def append(self, message: dict[str, Any]) -> None:
        if message.get("role") == "assistant":
            self._answered()
        self._write(partial(self.store.append_message, self.session_id, message))

    def using_model(self, model: str, api_base: str | None) -> None:
        """Requests go to `model` at `api_base` from now on. The session records it (for the next
        --continue) only once one of them is answered: opening a session from an app on another
        model, or a /model the user takes back before sending, leaves its recorded model alone."""
        self._model = (model, api_base)

    def _answered(self) -> None:
        """A model answered a request of this session: record the model in use if it changed."""
        if self._model is not None:
            model, api_base = self._model
            self._model = None
            self._write(partial(self.store.set_model, self.session_id, model, api_base))

    def compaction(
        self, messages: list[dict[str, Any]], archived: dict[str, dict[str, Any]], record: CompactionRecord
    ) -> None:
        """The rewritten transcript, the originals it archived and the record, in one transaction."""
        self._write(partial(self.store.apply_compaction, self.session_id, messages, archived, record))

    def replace_checkpoint(self, message: dict[str, Any]) -> None:
        """The newest checkpoint changed in place (an edit, its refill record); the transcript keeps its length."""
        self._write(partial(self.store.replace_checkpoint, self.session_id, message))

    def record(self, record: CompactionRecord) -> None:
        """A compaction that changed nothing is still logged."""
        self._write(partial(self.store.record_compaction, self.session_id, record))

    def usage(self, record: UsageRecord) -> None:
        self._answered()
        self._write(partial(self.store.record_usage, self.session_id, record))

    def remember_window(self, model: str, tokens: int) -> None:
        """The window a provider stated for `model`, for every later session on it (store/windows.py).
        Queued with the session's writes, so a store that cannot take it now is told and retried."""
        self._write(partial(self.store.remember_window, model, tokens))

    def learned_window(self, model: str) -> int | None:
        """The window recorded for `model`. A store that cannot be read now answers None: the
        provider states the window again if it is needed, and it is recorded then."""
        try:
            return self.store.learned_window(model)
        except StoreError:
            return None

    def delete(self) -> bool:
        """Remove the session (one with nothing in it worth keeping); True if it is gone. A store
        that cannot delete it now leaves it as it is: nothing is lost, so nothing is reported."""
        try:
            return self.store.delete_session(self.session_id)
        except StoreError:
            return False

    def _write(self, write: Write) -> None:
        self._queue.append(write)
        while self._queue:
            try:
                self._queue[0]()
            except StoreError as exc:
                self._report(exc)
                return
            except BaseException:
                self._queue.popleft()  # a bug, not a fault of the disk: retrying would fail the same way
                raise
            self._queue.popleft()
        if self._failing:
            self._failing = False
            self.emit(ev.Notice(f"Session {self.session_id} is saved again.", "information"))

    def _report(self, exc: StoreError) -> None:
        if self._failing:
            return
        self._failing = True
        self.emit(
            ev.ErrorEvent(
                f"session {self.session_id} is not saved: {exc}. What is on screen stays; "
                "saving is tried again with the next message"
            )
        )
