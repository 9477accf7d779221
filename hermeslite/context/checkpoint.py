"""The checkpoint in a transcript: finding it, and replacing it with the user's edit.

A user who can read the checkpoint will find things to fix: a wrong file
name, a decision it missed, a goal it got backwards. An edit is held to the
same shape as a model's summary (the required sections, none of them empty),
must fit the room a checkpoint has, has its secrets masked, and gets back any
recorded fact it dropped: those are kept by code, not by whoever wrote the
text. The edited checkpoint then stands where the old one stood, in the same
frame, so the model reads it exactly as it would a summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .anchors import Anchors, with_missing_anchors
from .handoff import find_previous, has_handoff, merge_into, split_handoff, summary_message
from .messages import ANCHORS_KEY, SUMMARY_KEY, Message
from .redact import redact_secrets
from .summary_prompt import checkpoint_problem, empty_sections
from .tokens import estimate_tokens

WHAT = "the edited checkpoint"


@dataclass(frozen=True)
class Checkpoint:
    index: int  # where the message carrying it stands in the transcript
    text: str  # the checkpoint as the model reads it, recorded facts included
    anchors: dict[str, Any]  # the recorded facts, as stored with it


@dataclass(frozen=True)
class CheckpointEdit:
    """The outcome of an edit: the new transcript and checkpoint, or why the edit was refused."""

    messages: list[Message] | None = None
    text: str = ""
    reason: str | None = None

    @property
    def accepted(self) -> bool:
        return self.messages is not None


def current_checkpoint(messages: list[Message]) -> Checkpoint | None:
    """The newest checkpoint in `messages`, or None when nothing was compacted."""
    for index in range(len(messages) - 1, -1, -1):
        if has_handoff(messages[index]):
            found = find_previous([messages[index]])
            assert found is not None
            return Checkpoint(index, found[0], found[1])
    return None


def edit_problem(text: str, limit_tokens: int) -> str | None:
    """Why `text` cannot stand as the checkpoint, or None."""
    problem = checkpoint_problem(text, WHAT)
    if problem is not None:
        return problem
    empty = empty_sections(text)
    if empty:
        return f"{WHAT} leaves the section(s) {', '.join(empty)} empty (write 'None.' where there is nothing)"
    size = estimate_tokens(text)
    if size > limit_tokens:
        return f"{WHAT} is ~{size:,} tokens, more than the {limit_tokens:,} this window leaves for a checkpoint"
    return None


def replace_checkpoint(messages: list[Message], text: str, *, limit_tokens: int) -> CheckpointEdit:
    """`messages` with the newest checkpoint replaced by `text`, validated; `messages` is not modified."""
    current = current_checkpoint(messages)
    if current is None:
        return CheckpointEdit(reason="there is no checkpoint to edit: nothing has been compacted yet")
    text = text.strip()
    problem = edit_problem(text, limit_tokens)
    if problem is not None:
        return CheckpointEdit(text=text, reason=problem)
    anchors = Anchors.from_dict(current.anchors)
    final = with_missing_anchors(redact_secrets(text), anchors)
    old = messages[current.index]
    _, rest = split_handoff(old)
    if rest is None:
        new = {**old, **summary_message(str(old.get("role")), final, anchors.to_dict())}
    else:
        original = {k: v for k, v in old.items() if k not in (SUMMARY_KEY, ANCHORS_KEY)}
        original["content"] = rest
        new = merge_into(original, final, anchors.to_dict())
    edited = list(messages)
    edited[current.index] = new
    return CheckpointEdit(messages=edited, text=final)
