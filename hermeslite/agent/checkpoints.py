"""The turn log and file checkpoints, kept by the agent as a session runs.

Each turn (a message or a `!command`) is logged when it starts, with the
messages the transcript held just before it, so /rewind can put the
conversation back. Before the turn's first call of a tool that declares it
can write (`Tool.writes`), and after each such call, the project's files are
snapshotted into hermeslite's shadow repository (store/shadow_repo.py), off
the event loop. Calls that run at once share the one snapshot before them.

Checkpoints never stop a session. No git, a git too old, a home folder, a
project too big or a store that fails: one line says so and file
checkpoints are off for the rest of the session; the turn log goes on, so
the conversation can still be rewound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from hermeslite.config import CheckpointsConfig
from hermeslite.context.messages import ARCHIVE_KEY, Message, reference_id
from hermeslite.store.checkpoints import open_repo, prune_due
from hermeslite.store.errors import StoreError
from hermeslite.store.sessions import SessionStore
from hermeslite.store.shadow_git import CheckpointError
from hermeslite.store.shadow_prune import prune
from hermeslite.store.shadow_repo import Limits, ShadowRepo
from hermeslite.store.turn_log import AFTER, BEFORE

from . import events as ev

MB = 2**20
SKIPPED_SHOWN = 5  # files named in the line about files left out for size


def message_ref(message: Message) -> str:
    """The id a message's original is archived under when a compaction removes or prunes it."""
    return str(message.get(ARCHIVE_KEY) or reference_id(message))


class Checkpoints:
    """One session's turn log and file snapshots."""

    def __init__(
        self,
        config: CheckpointsConfig,
        store: SessionStore,
        session_id: str,
        cwd: Path,
        emit: Callable[[ev.Event], None],
    ) -> None:
        self.config = config
        self.store = store
        self.session_id = session_id
        self.cwd = cwd
        self.emit = emit
        self.turn: int | None = None  # the running (or last) turn's number
        self.off_reason: str | None = None if config.enabled else "checkpoints.enabled is false"
        self._repo: ShadowRepo | None = None
        self._lock = asyncio.Lock()  # one snapshot at a time: calls of one reply run at once
        self._opening = asyncio.Lock()
        self._before_taken = False
        self._listed: tuple[list[Message], int, int] | None = None  # (transcript, length, turn) last logged
        self._prune: asyncio.Task[None] | None = None

    # -- the turn log ----------------------------------------------------------------

    def begin_turn(self, text: str, messages: list[Message]) -> None:
        """Log a new turn: `text` as the user sent it, `messages` the transcript just before it."""
        base, new = None, messages[1:] if messages and messages[0].get("role") == "system" else messages
        if self._listed is not None:
            listed, length, turn = self._listed
            if listed is messages and len(messages) >= length:
                base, new = turn, messages[length:]
        self._before_taken = False
        try:
            self.turn = self.store.turn_log.begin(self.session_id, text, base, [message_ref(m) for m in new])
        except StoreError as exc:
            self.turn, self._listed = None, None
            self.emit(ev.Notice(f"This turn cannot be rewound: the turn log was not saved ({exc}).", "warning"))
            return
        self._listed = (messages, len(messages), self.turn)

    def forget_transcript(self) -> None:
        """The transcript was rewritten outside a compaction (a rewind): the next turn lists it whole."""
        self._listed = None

    # -- snapshots -------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.off_reason is None and self.turn is not None

    async def before_write(self) -> None:
        """Snapshot before the turn's first tool that can write (once per turn)."""
        if not self.active:
            return
        async with self._lock:
            if self._before_taken or not self.active:
                return
            self._before_taken = True
            await self._take(BEFORE, None)

    async def after_write(self, tool: str) -> None:
        """Snapshot after a tool that can write, so the next one's changes are told apart."""
        if not self.active or not self._before_taken:
            return
        async with self._lock:
            await self._take(AFTER, tool)

    async def repo(self) -> ShadowRepo:
        """The project's shadow repository, opened on first use; CheckpointError when checkpoints are off."""
        if self.off_reason is not None:
            raise CheckpointError(self.off_reason)
        async with self._opening:
            if self._repo is None:
                try:
                    self._repo = await asyncio.to_thread(open_repo, self.cwd, self._limits())
                except CheckpointError as exc:
                    self._turn_off(str(exc))
                    raise
            return self._repo

    def _limits(self) -> Limits:
        c = self.config
        return Limits(tuple(c.exclude), int(c.max_file_mb * MB), c.max_files)

    async def _take(self, kind: str, tool: str | None) -> None:
        turn = self.turn
        try:
            repo = await self.repo()
            snapshot = await asyncio.to_thread(repo.snapshot, self.session_id)
            if turn is not None:
                log = self.store.turn_log
                log.snapshot(self.session_id, turn, kind, tool, snapshot.commit, str(repo.root), snapshot.paths)
        except (CheckpointError, StoreError) as exc:
            if self.off_reason is None:
                self._turn_off(str(exc))
            return
        if snapshot.skipped:
            self._say_skipped(snapshot.skipped)
        if self._prune is None:
            self._prune = asyncio.create_task(self._prune_store(repo))

    def _turn_off(self, reason: str) -> None:
        self.off_reason = reason
        self.emit(
            ev.Notice(f"File checkpoints are off: {reason}. /rewind can still take back the conversation.", "warning")
        )

    def _say_skipped(self, paths: tuple[str, ...]) -> None:
        shown = ", ".join(paths[:SKIPPED_SHOWN]) + (
            f" and {len(paths) - SKIPPED_SHOWN} more" if len(paths) > SKIPPED_SHOWN else ""
        )
        limit = f"{self.config.max_file_mb:g} MB"
        self.emit(
            ev.Notice(f"Not in file checkpoints (over {limit}, checkpoints.max_file_mb): {shown}.", "information")
        )

    async def _prune_store(self, repo: ShadowRepo) -> None:
        """Once a day per project, after the session's first snapshot: old sessions' snapshots go."""
        try:
            await asyncio.to_thread(self._prune_now, repo)
        except (CheckpointError, StoreError, OSError) as exc:
            self.emit(ev.Notice(f"Old file checkpoints could not be pruned: {exc}.", "warning"))

    def _prune_now(self, repo: ShadowRepo) -> None:
        if prune_due(repo):
            c = self.config
            prune(repo, keep_days=c.keep_days, max_bytes=int(c.max_store_mb * MB), keep={self.session_id})
