"""The user's controls over compaction: preview, undo, read and edit the checkpoint, hand off.

Each is a function of the agent that returns plain data the front ends
render (the TUI as views and notes, the line chat as lines on stderr), so
both behave the same and neither reaches into the agent's parts. None of
them runs while a turn is running: the front ends queue them until it ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermeslite.context.checkpoint import Checkpoint, CheckpointEdit, current_checkpoint
from hermeslite.context.handoff import has_handoff, split_handoff
from hermeslite.context.messages import Message, is_summary
from hermeslite.context.plan import Preview
from hermeslite.context.result import CompressionResult, format_tokens
from hermeslite.context.turn import upto_problem, user_turns
from hermeslite.store.sessions import NothingToUndo, StoreError
from hermeslite.store.todos import strip_snapshots
from hermeslite.store.turn_log import message_list

from . import events as ev
from .checkpoints import message_ref
from .compaction import planned_pass

if TYPE_CHECKING:
    from .loop import Agent


PREVIEW_FLAG = "--preview"
UPTO_FLAG = "--upto"
COMPRESS_USAGE = "usage: /compress [--preview] [--upto N] [focus]"


@dataclass(frozen=True)
class CompressArgs:
    """`/compress [--preview] [--upto N] [focus]` read, the syntax every front end accepts."""

    focus: str | None = None
    preview: bool = False
    upto: int | None = None  # compact user turns 1..N only
    error: str | None = None  # one line when the arguments cannot be read


def compress_args(args: str) -> CompressArgs:
    """The arguments of `/compress`; `--upto` takes a whole number right after it."""
    words, focus, upto, preview = args.split(), [], None, False
    at = 0
    while at < len(words):
        word = words[at]
        if word == PREVIEW_FLAG:
            preview = True
        elif word == UPTO_FLAG:
            number = words[at + 1] if at + 1 < len(words) else ""
            if not number.isdigit() or upto is not None:
                return CompressArgs(error=f"{COMPRESS_USAGE} (--upto takes one user turn number, e.g. --upto 3)")
            upto, at = int(number), at + 1
        else:
            focus.append(word)
        at += 1
    return CompressArgs(" ".join(focus) or None, preview, upto)


def upto_error(agent: Agent, upto: int | None) -> str | None:
    """Why `/compress --upto <upto>` cannot run on this session now, or None (also for no --upto)."""
    if upto is None:
        return None
    problem = upto_problem(strip_snapshots(agent.messages), upto)
    return f"/compress --upto: {problem}" if problem else None


def upto_for_turn(agent: Agent, turn: int) -> int:
    """The `/compress --upto` number that summarizes the conversation through `turn`, numbered as
    /rewind numbers the session's turns ("summarize up to here" in its picker).

    `--upto` counts the user turns of the transcript as it is now, which a
    compaction or a rewind has renumbered. The turn's message is found after
    the last user turn the transcript held before it (by the turn log's
    references) and checked by its text. ValueError says, in one line, why
    there is none.
    """
    records = agent.deps.store.turn_log.turns(agent.session_id)
    record = next((r for r in records if r.turn == turn), None)
    if record is None:
        raise ValueError(f"there is no turn {turn}")
    try:
        before = set(message_list(records, turn))
    except LookupError as exc:
        raise ValueError(f"the turn log does not reach back to turn {turn} ({exc})") from None
    live = strip_snapshots(agent.messages)
    starts = user_turns(live)
    held = [n for n, i in enumerate(starts) if message_ref(live[i]) in before]
    # Its message follows the last one the transcript held before it; with none held, it is the
    # first, or the second after a message a checkpoint was merged into (that one's reference is new).
    candidates = [held[-1] + 1] if held else [0, 1] if starts and _merged(live[starts[0]]) else [0]
    upto = next((n + 1 for n in candidates if n < len(starts) and _user_text(live[starts[n]]) == record.text), None)
    if upto is None:
        raise ValueError(
            f"turn {turn} is not in the conversation as it is now: a compaction already summarized it, "
            "or a rewind took it back"
        )
    if upto == len(starts):
        raise ValueError(f"turn {turn} is the latest turn, and a compaction always keeps the latest turn whole")
    problem = upto_problem(live, upto)
    if problem:
        raise ValueError(problem.replace("--upto takes", "summarizing takes"))
    return upto


def _merged(message: Message) -> bool:
    """A user turn's message that a checkpoint was merged into."""
    return has_handoff(message) or is_summary(message)


def _user_text(message: Message) -> Any:
    """What the user sent in a user turn's message, a checkpoint merged into it left out."""
    return split_handoff(message)[1] if _merged(message) else message.get("content")


@dataclass(frozen=True)
class CompactionPreview:
    """What `/compress [focus]` would do now; nothing was sent and nothing changed."""

    preview: Preview
    memory_flush: bool  # the memory flush would run before it (one more model call)

    def lines(self) -> list[str]:
        lines = self.preview.lines()
        if self.preview.changes and self.memory_flush:
            lines.append("Memory flush: yes, one call with only the memory tool, before the summary")
        return lines


def preview(agent: Agent, focus: str | None = None, upto: int | None = None) -> CompactionPreview:
    """The manual /compress [focus], planned and described: no model call, no change to the session.

    Planned with what the last request sent carried, as the pass itself is (it keeps what came after
    that request verbatim when it can), so the preview shows the same cut.
    """
    compressor = agent.deps.compressor
    agent.measure_for(compressor)  # what every pass measures against
    planned = planned_pass(compressor, agent.messages, agent.last_sent, focus=focus, upto=upto)
    return CompactionPreview(planned, agent.compaction.flush_wanted(strip_snapshots(agent.messages)))


UNSAVED = "the session is not fully saved yet (the error above says why); try again once it is, after the next message"


@dataclass(frozen=True)
class UndoReport:
    done: bool
    text: str  # one line for the user


def uncompress(agent: Agent) -> UndoReport:
    """Revert the latest compaction: the transcript before it, then every message added since.

    The engine's iterative state follows the restored transcript (its previous
    checkpoint, if any), the meter shows the new pressure, and the next turn's
    preflight decides again whether to compact.
    """
    deps = agent.deps
    before_messages, before_tokens = len(agent.messages), agent.request_tokens()
    if not agent.saver.saved:
        return UndoReport(False, f"Nothing undone: {UNSAVED}.")
    try:
        done = deps.store.undo_compaction(agent.session_id)
        restored = deps.store.load_transcript(agent.session_id)
    except (NothingToUndo, StoreError) as exc:
        return UndoReport(False, f"Nothing undone: {exc}.")
    agent.adopt_transcript(restored)
    deps.compressor.adopt_transcript(restored)
    agent.emit(ev.PressureChanged(agent.pressure()))
    since = f"; the {_count(done.added_since, 'message')} added since follow it" if done.added_since else ""
    return UndoReport(
        True,
        (
            f"Undid the last compaction: {before_messages} → {len(restored)} messages, "
            f"~{format_tokens(before_tokens)} → ~{format_tokens(agent.request_tokens())} tokens{since}. "
            "The next turn compacts again if the context is still over the threshold."
        ),
    )


def checkpoint(agent: Agent) -> Checkpoint | None:
    """The checkpoint the model reads now, or None before the first compaction."""
    return current_checkpoint(agent.messages)


def edit_checkpoint(agent: Agent, text: str) -> CheckpointEdit:
    """Put the user's text in place of the checkpoint, validated like a model's summary.

    Accepted: it replaces the checkpoint in the store, the transcript and the
    engine's iterative state. Refused (or not saved): nothing changes and
    `reason` says why.
    """
    current = current_checkpoint(agent.messages)
    compressor = agent.deps.compressor
    edit = compressor.edit_checkpoint(agent.messages, text)
    if edit.messages is None or current is None:
        return edit
    if not agent.saver.saved:
        return CheckpointEdit(text=edit.text, reason=UNSAVED)
    message = edit.messages[current.index]
    try:
        agent.deps.store.replace_checkpoint(agent.session_id, message)
    except StoreError as exc:
        return CheckpointEdit(text=edit.text, reason=f"the edit could not be saved: {exc}")
    agent.messages[current.index] = message
    agent.ledger.replace(current.index, message)
    agent.deps.checkpoints.forget_transcript()  # the turn log's next entry lists the edited transcript whole
    compressor.adopt_transcript(agent.messages)
    agent.emit(ev.PressureChanged(agent.pressure()))
    return edit


@dataclass(frozen=True)
class HandoffReport:
    session_id: str | None  # the new session; None when the handoff failed
    text: str  # one line for the user
    result: CompressionResult | None = field(default=None, repr=False)


async def hand_off(agent: Agent, focus: str | None = None) -> HandoffReport:
    """Start a new session seeded with a fresh checkpoint (kept on `focus`), the live todo list and
    the latest turn; this session stays saved as it is, and the new one records where it came from.

    The checkpoint is made by a compressor with this one's settings but its own
    state, so nothing about the current session changes.
    """
    deps = agent.deps
    messages = strip_snapshots(agent.messages)
    compressor = deps.compressor.fresh()
    agent.measure_for(compressor)
    result = await compressor.execute(compressor.plan(messages, focus, force=True, handoff=True))
    if result.aborted:
        return HandoffReport(None, f"Handoff failed, nothing changed: {result.error}.", result)
    seeded = agent.compaction.refresh(result.messages)
    store = deps.store
    try:
        info = store.get_session(agent.session_id)
        new_id = store.create_session(
            model=deps.llm.model,
            cwd=str(deps.cwd),
            title=info.title if info else None,
            api_base=deps.settings.model.api_base,
            parent_id=agent.session_id,
        )
        store.seed_session(new_id, seeded, result.archived, agent.session_id)
        store.save_todos(new_id, deps.todos.to_json())
    except StoreError as exc:
        return HandoffReport(None, f"Handoff failed, no session was created: {exc}.", result)
    todos = len(deps.todos.active())
    return HandoffReport(
        new_id,
        (
            f"Handed off to session {new_id} with {_carried(result)}, the latest turn and "
            f"{_count(todos, 'open todo')}: ~{format_tokens(agent.request_tokens_for(seeded))} tokens instead of "
            f"~{format_tokens(agent.request_tokens())}. Session {agent.session_id} stays saved."
        ),
        result,
    )


def _carried(result: CompressionResult) -> str:
    if result.fallback_used:
        return f"a checkpoint built by code (the summary failed: {result.error})"
    if result.summary:
        return "a fresh checkpoint"
    return "the whole conversation (too short to summarize)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
