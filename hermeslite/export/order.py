"""The whole conversation in order, put back together from the turn log, the transcript and the archive.

A compaction rewrites the transcript: the messages it summarized leave it (their
originals go to the archive) and a checkpoint takes their place. The turn log
(store/turn_log.py) keeps, for each turn, the list of messages the transcript
held just before it, by reference; read in order, those lists and the current
transcript are snapshots of the conversation over time. This module merges the
snapshots into one sequence and says where each compaction happened.

Between two snapshots the conversation either grew (the later one extends the
earlier) or was rewritten by compactions made meanwhile. After a compaction the
snapshot starts with the compaction's output, `messages_after` messages with
the system prompt, and everything beyond that was added after it: so the
messages of the output not yet seen (the kept tail of the turn that was
running) come before the compaction's mark, and the rest after it. Several
compactions between two snapshots are marked together at that point, since the
log cannot tell their messages apart. A checkpoint message itself is not a
message of the conversation (its mark stands for it): the caller leaves it out
of the snapshots, or puts in its place the user message it was merged into.

Pure: the caller reads the store and hands over plain data.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from hermeslite.store.compactions import CompactionRecord


@dataclass(frozen=True)
class Snapshot:
    """The references of the messages the transcript held at `at` (system prompt excluded)."""

    at: float
    refs: tuple[str, ...]


@dataclass(frozen=True)
class RefStep:
    ref: str


@dataclass(frozen=True)
class MarkStep:
    index: int  # into the records, oldest first


Step = RefStep | MarkStep


def merge(snapshots: Sequence[Snapshot], records: Sequence[CompactionRecord]) -> list[Step]:
    """Every message once, in the order it entered the conversation, with each compaction's mark where it happened.

    `snapshots` oldest first, the last one the current transcript (its `at`: infinity).
    """
    steps: list[Step] = []
    emitted: Counter[str] = Counter()
    pending = [i for i, r in enumerate(records) if not r.aborted]
    previous: tuple[str, ...] = ()

    def emit(refs: Sequence[str], *, check_seen: bool) -> None:
        counts: Counter[str] = Counter()
        for ref in refs:
            counts[ref] += 1
            if check_seen and counts[ref] <= emitted[ref]:
                continue
            emitted[ref] += 1
            steps.append(RefStep(ref))

    for snapshot in snapshots:
        made = [i for i in pending if records[i].at <= snapshot.at]
        pending = [i for i in pending if records[i].at > snapshot.at]
        if not made:
            extends = snapshot.refs[: len(previous)] == previous
            emit(snapshot.refs[len(previous) :] if extends else snapshot.refs, check_seen=not extends)
        else:
            output = max(0, records[made[-1]].messages_after - 1)
            emit(snapshot.refs[:output], check_seen=True)
            steps.extend(MarkStep(i) for i in made)
            emit(snapshot.refs[output:], check_seen=False)
        previous = snapshot.refs
    steps.extend(MarkStep(i) for i in pending)
    return steps
