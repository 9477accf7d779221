"""Taking changes back: /rewind, /undo and /diff, as plain data every front end shows the same way.

`/rewind` puts the files, the conversation, or both back as they were just
before a turn the user picks; `/undo` takes back the file changes of the
last turn that made any; `/diff` shows what the session changed. Nothing is
restored unseen: a preview comes first, listing every file that would
change (a diffstat) and naming the files someone changed by hand since
hermeslite last saw them, which a restore would overwrite; the front end
asks before overwriting those (`overwrite=True` once the user said yes).

The git work runs off the event loop. These run between turns: the front
ends queue /rewind and /undo like messages until the running turn ends.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hermeslite.store.errors import StoreError
from hermeslite.store.shadow_git import CheckpointError
from hermeslite.store.shadow_restore import DELETE, RECREATE, RestorePlan, apply_restore, plan_restore
from hermeslite.store.turn_log import AFTER, BEFORE, SnapshotRecord, TurnRecord

from .controls import UNSAVED
from .rewind_chat import CannotRewind, ChatRewind, adopt, rebuild

if TYPE_CHECKING:
    from hermeslite.store.shadow_repo import ShadowRepo

    from .loop import Agent

BOTH, CODE, CHAT = "both", "code", "chat"
CHOICES = {
    BOTH: "the files and the conversation",
    CODE: "the files only",
    CHAT: "the conversation only",
}
DIFF_LINES = 5_000  # a longer diff is cut, saying how much more there is
SHOWN_FILES = 40  # files listed in a preview; the rest are counted


@dataclass(frozen=True)
class TurnRow:
    """A turn as the /rewind picker and list show it."""

    number: int
    at: float
    text: str
    files: tuple[str, ...]  # what the session's tools changed during it
    undone: bool  # those changes were taken back


@dataclass(frozen=True)
class Preview:
    """What a rewind or an undo would do now; nothing has changed yet."""

    turn: int
    what: str  # BOTH | CODE | CHAT
    text: str  # the turn, as the user sent it
    plan: RestorePlan | None = None  # the files part; None when there is none (see `note`)
    note: str = ""  # why the files part is empty, or why it cannot be done
    chat: ChatRewind | None = None  # the conversation part
    undo: bool = False  # an /undo (of turn `turn`'s file changes)
    undone: tuple[int, ...] = field(default=())  # turns whose file changes the restore takes back

    @property
    def hand_changed(self) -> tuple[str, ...]:
        return self.plan.hand_changed if self.plan else ()

    @property
    def empty(self) -> bool:
        """Nothing would change (no file differs, and no conversation part)."""
        return self.chat is None and not (self.plan and self.plan.changes)

    @property
    def title(self) -> str:
        return f"Undo the file changes of turn {self.turn}" if self.undo else f"Rewind to before turn {self.turn}"

    def lines(self) -> list[str]:
        """The preview for the user (under `title`): the turn, what goes back, the diffstat, the files
        changed by hand."""
        out = [f"Turn {self.turn}: {_quote(self.text)}"]
        if not self.undo:
            out.append(f"Restores {CHOICES[self.what]}.")
        if self.chat is not None:
            out.append(self.chat.summary())
        if self.note:
            out.append(self.note)
        if self.plan is not None:
            out += diffstat(self.plan)
        return out


def diffstat(plan: RestorePlan) -> list[str]:
    """Each file the restore changes, what happens to it and the lines it brings back (+) or takes (-)."""
    if not plan.changes:
        return ["Files: none differ, nothing to write."]
    width = min(60, max(len(c.path) for c in plan.changes[:SHOWN_FILES]))
    out = []
    if plan.hand_changed:  # first, where it is read before the list scrolls
        names = ", ".join(plan.hand_changed[:10]) + (" …" if len(plan.hand_changed) > 10 else "")
        out.append(f"! Changed by hand since hermeslite last saw them (restoring overwrites that): {names}")
    out.append(f"Files that change ({len(plan.changes)}):")
    for change in plan.changes[:SHOWN_FILES]:
        counts = "binary" if change.added is None else f"+{change.added} -{change.removed}"
        why = {DELETE: "  (created since: deleted)", RECREATE: "  (deleted since: restored)"}.get(change.action, "")
        mark = "!" if change.path in plan.hand_changed else " "
        out.append(f" {mark} {change.path:<{width}}  {counts}{why}")
    if len(plan.changes) > SHOWN_FILES:
        out.append(f"   … and {len(plan.changes) - SHOWN_FILES} more")
    if plan.left_alone:
        names = ", ".join(plan.left_alone[:10]) + (" …" if len(plan.left_alone) > 10 else "")
        out.append(f"Left alone (ignored, excluded or too large now): {names}")
    return out


@dataclass(frozen=True)
class Report:
    done: bool
    text: str  # one line for the user
    prompt: str | None = None  # after the conversation went back: the turn's text, to edit and send again


# -- the turn list ------------------------------------------------------------------


def turn_rows(agent: Agent) -> list[TurnRow]:
    """The session's turns, oldest first, with the files each changed; StoreError if unreadable."""
    log = agent.deps.store.turn_log
    changed: dict[int, set[str]] = {}
    for snap in log.snapshots(agent.session_id):
        if snap.kind == AFTER:
            changed.setdefault(snap.turn, set()).update(snap.paths)
    return [
        TurnRow(t.turn, t.at, t.text, tuple(sorted(changed.get(t.turn, ()))), t.undone)
        for t in log.turns(agent.session_id)
    ]


def parse_args(args: str) -> tuple[int | None, str | None, bool]:
    """(turn, choice, force) from `/rewind [N] [both|code|chat] [--force]`; ValueError saying what is wrong."""
    turn, choice, force = None, None, False
    for word in args.split():
        if word == "--force":
            force = True
        elif word.lower() in CHOICES and choice is None:
            choice = word.lower()
        elif word.isdigit() and turn is None:
            turn = int(word)
        else:
            raise ValueError(f"{word!r} is not a turn number, both, code, chat or --force")
    return turn, choice, force


# -- previews -----------------------------------------------------------------------


async def preview_rewind(agent: Agent, turn: int, what: str) -> Preview:
    """What `/rewind turn what` would do; CannotRewind (one line) when it cannot."""
    records = _records(agent)
    record = next((t for t in records[0] if t.turn == turn), None)
    if record is None:
        last = records[0][-1].turn if records[0] else 0
        raise CannotRewind(f"there is no turn {turn} (this session has {last}); /rewind lists them")
    chat = rebuild(agent, turn) if what in (BOTH, CHAT) else None
    if what == CHAT:
        return Preview(turn, what, record.text, chat=chat)
    snaps = records[1]
    target = next((s for s in snaps if s.kind == BEFORE and s.turn >= turn), None)
    if target is None:
        off = agent.deps.checkpoints.off_reason
        note = f"Files: cannot be restored, file checkpoints are off ({off})." if off else ""
        return Preview(turn, what, record.text, note=note or f"Files: none changed since turn {turn}.", chat=chat)
    edited = {p for s in snaps if s.kind == BEFORE and s.turn > target.turn for p in s.paths}
    plan, note = await _plan(agent, target, edited=edited)
    undone = tuple(sorted({s.turn for s in snaps if s.turn >= turn and s.kind == AFTER}))
    return Preview(turn, what, record.text, plan=plan, note=note, chat=chat, undone=undone)


async def preview_undo(agent: Agent) -> Preview:
    """What /undo would take back: the file changes of the last turn that made any and was not undone."""
    turns, snaps = _records(agent)
    undone = {t.turn for t in turns if t.undone}
    changed: dict[int, set[str]] = {}
    for snap in snaps:
        if snap.kind == AFTER and snap.paths and snap.turn not in undone:
            changed.setdefault(snap.turn, set()).update(snap.paths)
    if not changed:
        if off := agent.deps.checkpoints.off_reason:
            raise CannotRewind(f"file checkpoints are off ({off})")
        raise CannotRewind("no turn of this session changed files, or their changes were all undone")
    last = max(changed)
    target = next(s for s in snaps if s.turn == last and s.kind == BEFORE)
    text = next(t.text for t in turns if t.turn == last)
    edited = {p for s in snaps if s.kind == BEFORE and s.turn > last for p in s.paths}
    plan, note = await _plan(agent, target, edited=edited, only=changed[last])
    return Preview(last, CODE, text, plan=plan, note=note, undo=True, undone=(last,))


async def _plan(
    agent: Agent, target: SnapshotRecord, *, edited: set[str], only: set[str] | None = None
) -> tuple[RestorePlan | None, str]:
    """The restore plan to `target`, or None and the line saying why there cannot be one."""
    try:
        repo = await agent.deps.checkpoints.repo()
    except CheckpointError as exc:
        return None, f"Files: cannot be restored, file checkpoints are off ({exc})."
    if target.project != str(repo.root):
        return None, f"Files: cannot be restored here; they were snapshotted in {target.project}: run hermeslite there."
    try:
        plan = await asyncio.to_thread(plan_restore, repo, agent.session_id, target.commit, only, edited)
    except CheckpointError as exc:
        return None, f"Files: cannot be restored ({exc})."
    return plan, ""


def _records(agent: Agent) -> tuple[list[TurnRecord], list[SnapshotRecord]]:
    log = agent.deps.store.turn_log
    try:
        return log.turns(agent.session_id), log.snapshots(agent.session_id)
    except StoreError as exc:
        raise CannotRewind(f"the turn log could not be read: {exc}") from None


# -- doing it -----------------------------------------------------------------------


async def apply(agent: Agent, preview: Preview, *, overwrite: bool = False) -> Report:
    """Carry out a preview: files first, then the conversation. Files changed by hand are overwritten
    only with `overwrite`; the files moving on since the preview stops it before anything changes."""
    if preview.hand_changed and not overwrite:
        return Report(False, "Nothing restored: " + _hand_changed_line(preview.hand_changed))
    if preview.chat is not None and not agent.saver.saved:
        return Report(False, f"Nothing restored: {UNSAVED}.")
    parts: list[str] = []
    if preview.plan is not None:
        try:
            repo = await agent.deps.checkpoints.repo()
            done = await asyncio.to_thread(apply_restore, repo, agent.session_id, preview.plan)
            agent.deps.store.turn_log.mark_undone(agent.session_id, list(preview.undone))
        except (CheckpointError, StoreError) as exc:
            return Report(False, f"Nothing restored: {exc}.")
        parts.append(f"files: {done.written} written back, {done.deleted} deleted")
        if done.problems:
            parts.append("not restored: " + "; ".join(done.problems))
    elif preview.undo and preview.undone:
        agent.deps.store.turn_log.mark_undone(agent.session_id, list(preview.undone))
    prompt = None
    if preview.chat is not None:
        try:
            parts.append(adopt(agent, preview.chat))
        except StoreError as exc:
            return Report(False, "; ".join([*parts, f"the conversation is unchanged: {exc}"]))
        prompt = preview.text
    head = f"Undid turn {preview.turn}" if preview.undo else f"Rewound to before turn {preview.turn}"
    return Report(True, f"{head}: " + ("; ".join(parts) if parts else "nothing differed") + ".", prompt)


def _hand_changed_line(paths: tuple[str, ...]) -> str:
    names = ", ".join(paths[:10]) + (" …" if len(paths) > 10 else "")
    return f"changed by hand since hermeslite last saw them, and a restore would overwrite them: {names}"


# -- /diff --------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffReport:
    title: str
    text: str  # a unified diff, or the line saying why there is none
    is_diff: bool = False


async def session_diff(agent: Agent, since: int | None = None) -> DiffReport:
    """What the session changed in the files, since it started or since turn `since`, to now."""
    try:
        turns, snaps = _records(agent)
    except CannotRewind as exc:
        return DiffReport("Diff", f"No diff: {exc}.")
    if since is not None and not any(t.turn == since for t in turns):
        return DiffReport("Diff", f"No diff: there is no turn {since} (/rewind lists them).")
    start = since or 1
    base = next((s for s in snaps if s.kind == BEFORE and s.turn >= start), None)
    title = f"Changes since turn {since}" if since else "Changes in this session"
    if base is None:
        if off := agent.deps.checkpoints.off_reason:
            return DiffReport(title, f"No diff: file checkpoints are off ({off}).")
        return DiffReport(title, "No file changes: no tool has written since then.")
    try:
        repo = await agent.deps.checkpoints.repo()
    except CheckpointError as exc:
        return DiffReport(title, f"No diff: file checkpoints are off ({exc}).")
    if base.project != str(repo.root):
        return DiffReport(title, f"No diff: the changes were made in {base.project}.")
    try:
        text = await asyncio.to_thread(_diff_now, repo, base.commit)
    except CheckpointError as exc:
        return DiffReport(title, f"No diff: {exc}.")
    if not text:
        return DiffReport(title, f"No differences: the files are as they were before turn {base.turn}.")
    return DiffReport(f"{title} (before turn {base.turn} → now)", text, is_diff=True)


def _diff_now(repo: ShadowRepo, base: str) -> str:
    if not repo.exists(base):
        raise CheckpointError("that snapshot is no longer in the store (older than checkpoints.keep_days, or pruned)")
    now = repo.snapshot(None).commit
    return repo.unified_diff(base, now, DIFF_LINES)


def _quote(text: str) -> str:
    line = " ".join(text.split())
    return f'"{line[:70]}…"' if len(line) > 70 else f'"{line}"'
