"""Putting the conversation back as it was just before a turn, from the transcript and the archive.

The turn log (store/turn_log.py) lists, for each turn, the messages the
transcript held before it by reference. Each is found in the transcript as
it is now or, when a compaction has since pruned or summarized it, as its
original in the archive: rewinding past a compaction brings back the
messages it took away. The system prompt is built afresh (it says whether
the restored transcript holds a checkpoint), the result is repaired like a
loaded session, and the messages it drops are archived, so `recall` still
finds the turns that were taken back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermeslite.context.handoff import has_handoff
from hermeslite.context.messages import ARCHIVE_KEY, Message
from hermeslite.store.errors import StoreError
from hermeslite.store.transcript import repair_transcript
from hermeslite.store.turn_log import message_list

from . import events as ev
from .checkpoints import message_ref

if TYPE_CHECKING:
    from .loop import Agent


class CannotRewind(Exception):
    """`str()` says why, in one line for the user."""


@dataclass(frozen=True)
class ChatRewind:
    turn: int
    messages: list[Message]  # the transcript to adopt, system prompt first
    dropped: dict[str, Message]  # messages of the transcript now that it drops, to archive
    from_archive: int  # messages brought back from the archive
    missing: int  # references found neither in the transcript nor in the archive
    taken_back: int  # messages of the transcript now that are not in the rewound one

    def summary(self) -> str:
        """The preview's line about the conversation."""
        parts = [
            f"Conversation: {self.taken_back} messages from this turn on are taken back (/recall still finds them)"
        ]
        if self.from_archive:
            parts.append(f"{self.from_archive} compacted messages come back from the archive")
        if self.missing:
            parts.append(f"{self.missing} earlier messages cannot be found and are left out")
        return "; ".join(parts) + "."

    def describe(self, before: int) -> str:
        parts = [f"the conversation is back to before turn {self.turn}: {before} → {len(self.messages)} messages"]
        if self.from_archive:
            parts.append(f"{self.from_archive} brought back from the compaction archive")
        if self.missing:
            parts.append(f"{self.missing} could not be found and were left out")
        return ", ".join(parts)


def rebuild(agent: Agent, turn: int) -> ChatRewind:
    """The transcript as it was just before `turn`; CannotRewind when the log does not have it."""
    store, sid = agent.deps.store, agent.session_id
    try:
        refs = message_list(store.turn_log.turns(sid), turn)
        archived = store.originals(sid, refs)
    except LookupError:
        raise CannotRewind(f"the conversation before turn {turn} was not logged in full") from None
    except StoreError as exc:
        raise CannotRewind(f"the session store could not be read: {exc}") from None
    live = {message_ref(m): m for m in agent.messages[1:]}
    found: list[Message] = []
    from_archive = missing = 0
    for ref in refs:
        now = live.get(ref)
        if now is not None and ARCHIVE_KEY not in now:
            found.append(now)
        elif ref in archived:
            found.append(archived[ref])
            from_archive += 1
        elif now is not None:
            found.append(now)  # a pruned stand-in whose original is not archived: better than nothing
        else:
            missing += 1
    rest = repair_transcript(found)
    system = agent.deps.system_message(compacted=any(has_handoff(m) for m in rest))
    kept = {message_ref(m) for m in rest}
    dropped = {ref: m for ref, m in live.items() if ref not in kept}
    taken_back = sum(1 for m in agent.messages[1:] if message_ref(m) not in kept)
    return ChatRewind(turn, [system, *rest], dropped, from_archive, missing, taken_back)


def adopt(agent: Agent, rewind: ChatRewind) -> str:
    """Save and adopt the rewound transcript; the line saying what happened. StoreError when not saved."""
    before = len(agent.messages)
    agent.deps.store.rewind_transcript(agent.session_id, rewind.messages, rewind.dropped, rewind.turn)
    agent.adopt_transcript(rewind.messages)
    agent.deps.compressor.adopt_transcript(rewind.messages)
    agent.deps.checkpoints.forget_transcript()
    agent.emit(ev.PressureChanged(agent.pressure()))
    return rewind.describe(before)
