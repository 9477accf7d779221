"""The refill guard: when every compaction is full again within a turn, stop compacting by itself.

A compaction leaves the request at 60% of the threshold. When one turn's
work is enough to fill the rest (a window too small for the task, a tool
that prints a lot on every call), the session compacts on every turn: each
time another paid summary, each time more detail gone, and nothing gained.
So when three compactions in a row were each followed by the context
reaching the threshold again within one turn, automatic compaction stops
and the user is told what would help (`/handoff`, a bigger window,
`/compress <focus>`); it stays stopped until a successful manual compaction
starts the count again.

The count lives on the checkpoint itself (a private key, never sent): how
many refills in a row led up to it (REFILL_LIMIT once the guard has
stopped automatic compaction), and how many user turns followed it when
it was written. So a session continued in a new process
(`-p ... --continue`) or restored by `/uncompress` carries the count that
belongs to its transcript, with nothing else to keep in step.
"""

from __future__ import annotations

from typing import Any

from .handoff import has_handoff
from .messages import REFILL_KEY, Message
from .turn import is_user_turn

REFILL_LIMIT = 3  # compactions in a row, each refilled within one turn, before automatic ones stop


def _latest_checkpoint(messages: list[Message]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if has_handoff(messages[i]):
            return i
    return None


def _turns_from(messages: list[Message], at: int) -> int:
    return sum(1 for msg in messages[at:] if is_user_turn(msg))


def _record(messages: list[Message]) -> tuple[int, int, int] | None:
    """(where the latest checkpoint is, its strikes, the user turns after it then), when it has a record."""
    at = _latest_checkpoint(messages)
    record = messages[at].get(REFILL_KEY) if at is not None else None
    if at is None or not isinstance(record, dict):
        return None
    strikes, turns = record.get("strikes"), record.get("turns")
    if not isinstance(strikes, int) or not isinstance(turns, int):
        return None
    return at, strikes, turns


def refill_strikes(messages: list[Message]) -> int:
    """How many compactions in a row have been refilled within one turn, counting the one that the
    context reaching the threshold now would refill: the number an automatic compaction starting now
    records. 0 when the latest checkpoint has no record or more than one user turn has begun since;
    REFILL_LIMIT once the guard has stopped automatic compaction, until a manual one."""
    found = _record(messages)
    if found is None:
        return 0
    at, strikes, turns = found
    if strikes >= REFILL_LIMIT:
        return REFILL_LIMIT
    return strikes + 1 if _turns_from(messages, at) - turns <= 1 else 0


def is_paused(messages: list[Message]) -> bool:
    """Whether the latest checkpoint records that the guard has stopped automatic compaction."""
    found = _record(messages)
    return found is not None and found[1] >= REFILL_LIMIT


def stamped_checkpoint(messages: list[Message], strikes: int) -> tuple[int, Message] | None:
    """The latest checkpoint of `messages` (its index, and a copy) stamped with `strikes` and the user
    turns that follow it; None when there is no checkpoint."""
    at = _latest_checkpoint(messages)
    if at is None:
        return None
    record: dict[str, Any] = {"strikes": strikes, "turns": _turns_from(messages, at)}
    return at, {**messages[at], REFILL_KEY: record}


def with_refill_record(messages: list[Message], strikes: int) -> list[Message]:
    """`messages` with the latest checkpoint stamped (see `stamped_checkpoint`); the others are the
    same objects."""
    stamped = stamped_checkpoint(messages, strikes)
    if stamped is None:
        return messages
    out = list(messages)
    out[stamped[0]] = stamped[1]
    return out
