"""One typed view of a stored session, read once from the store, that every export format renders.

The messages are as the store holds them, every key kept, with one change:
every string in them goes through the redaction the store's tool output went
through before it was saved. The store masks what tools print, what the
summarizer sees and the arguments of the model's tool calls, but a key the user
typed is stored as it came, and so are calls saved before their arguments were
masked; an export is made to be shared, so it masks those too (masking is idempotent: what was masked stays as it was). A message a compaction removed or
pruned comes back as its archived original; a reference found neither in the
transcript nor in the archive is counted in `missing`, never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from hermeslite.context.handoff import has_handoff, split_handoff
from hermeslite.context.messages import Message, reference_id
from hermeslite.context.secret_calls import masked_strings
from hermeslite.store.compactions import CompactionRecord
from hermeslite.store.listing import SessionNotFound
from hermeslite.store.sessions import SessionStore
from hermeslite.store.turn_log import message_list
from hermeslite.store.usage import UsageRecord, UsageTotals

from .order import MarkStep, Snapshot, merge

TRANSCRIPT, ARCHIVE, CHECKPOINT = "transcript", "archive", "checkpoint"


@dataclass(frozen=True)
class MessageEntry:
    message: Message  # as stored, every key kept
    ref: str  # the id the archive keeps its original under
    source: str  # TRANSCRIPT | ARCHIVE (a compaction removed or pruned it: the original) | CHECKPOINT (words a
    # checkpoint was merged into, taken back out of it)


@dataclass(frozen=True)
class CompactionMark:
    number: int  # 1 for the session's first compaction
    record: CompactionRecord


Entry = MessageEntry | CompactionMark


@dataclass(frozen=True)
class SessionView:
    session_id: str
    title: str | None
    model: str | None
    mode: str  # default | accept-edits | plan
    cwd: str | None
    created_at: float
    updated_at: float
    parent_id: str | None
    system: Message | None  # the system prompt the session runs with now
    entries: list[Entry]
    usage: list[UsageRecord] = field(default_factory=list)
    missing: int = 0  # messages the turn log names that neither the transcript nor the archive holds

    @property
    def totals(self) -> UsageTotals:
        return UsageTotals.of(self.usage)

    @property
    def compactions(self) -> list[CompactionMark]:
        return [e for e in self.entries if isinstance(e, CompactionMark)]

    @property
    def messages(self) -> list[MessageEntry]:
        return [e for e in self.entries if isinstance(e, MessageEntry)]


def message_ref(message: Message) -> str:
    """The id a message's original is archived under (the rule agent/checkpoints.py logs turns by)."""
    return str(message.get("_hl_ref") or reference_id(message))


def load_view(store: SessionStore, session_id: str) -> SessionView:
    """The session `session_id` as one view; SessionNotFound or StoreError when the store cannot give it."""
    info = store.get_session(session_id)
    if info is None:
        raise SessionNotFound(f"no session with id {session_id!r}")
    transcript = store.open_transcript(session_id).messages
    system = transcript[0] if transcript and transcript[0].get("role") == "system" else None
    current = transcript[1:] if system is not None else transcript
    records = store.compactions(session_id)
    snapshots = _snapshots(store, session_id)
    live = {message_ref(m): m for m in current}
    snapshots.append(Snapshot(math.inf, tuple(message_ref(m) for m in current)))
    refs = sorted({ref for s in snapshots for ref in s.refs})
    archived = store.originals(session_id, refs)
    merged_words: dict[str, Message] = {}
    if any(not r.aborted for r in records):  # a handed-off session's first checkpoint has no mark to stand for it
        snapshots = _without_checkpoints(snapshots, {**live, **archived}, merged_words)
    entries: list[Entry] = []
    missing = 0
    for step in merge(snapshots, records):
        if isinstance(step, MarkStep):
            record = records[step.index]
            entries.append(CompactionMark(step.index + 1, replace(record, summary=masked_strings(record.summary))))
        elif step.ref in archived:
            entries.append(MessageEntry(masked_strings(archived[step.ref]), step.ref, ARCHIVE))
        elif step.ref in live:
            entries.append(MessageEntry(masked_strings(live[step.ref]), step.ref, TRANSCRIPT))
        elif step.ref in merged_words:
            entries.append(MessageEntry(masked_strings(merged_words[step.ref]), step.ref, CHECKPOINT))
        else:
            missing += 1
    return SessionView(
        session_id=info.id,
        title=info.title,
        model=info.model,
        mode=store.load_mode(session_id) or "default",
        cwd=info.cwd,
        created_at=info.created_at,
        updated_at=info.updated_at,
        parent_id=info.parent_id,
        system=masked_strings(system),
        entries=entries,
        usage=store.usage(session_id),
        missing=missing,
    )


def _without_checkpoints(
    snapshots: list[Snapshot], known: dict[str, Message], merged_words: dict[str, Message]
) -> list[Snapshot]:
    """The snapshots with each checkpoint message left out, or, where one was merged into a user message,
    that message's own words in its place (kept in `merged_words` under the id they are archived by, so
    the same words already seen before the compaction are not told twice)."""
    stand_in: dict[str, str | None] = {}
    for ref, msg in known.items():
        if not has_handoff(msg):
            continue
        rest = split_handoff(msg)[1]
        if rest is None:
            stand_in[ref] = None
            continue
        words: Message = {"role": msg.get("role", "user"), "content": rest}
        words_ref = reference_id(words)
        stand_in[ref] = words_ref
        merged_words[words_ref] = words
    return [
        Snapshot(s.at, tuple(r for r in (stand_in.get(ref, ref) for ref in s.refs) if r is not None)) for s in snapshots
    ]


def _snapshots(store: SessionStore, session_id: str) -> list[Snapshot]:
    """What the transcript held before each logged turn; a turn whose list the log cannot rebuild is skipped."""
    turns = store.turn_log.turns(session_id)
    out = []
    for record in turns:
        try:
            out.append(Snapshot(record.at, tuple(message_list(turns, record.turn))))
        except LookupError:
            continue
    return out
