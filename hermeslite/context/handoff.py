"""How a summary sits in the transcript, and how to find it again.

The wording matters more than it looks: a summary read as a fresh instruction
makes the model redo finished work, and one that sounds final makes it stop
using tools. So the frame says, in our words: this is a record, the latest
message wins, tools and memory work as before.
"""

from __future__ import annotations

import json
from typing import Any

from .messages import ANCHORS_KEY, SUMMARY_KEY, Message, text_of

OPEN = "[HANDOFF SUMMARY: REFERENCE ONLY]"
PREAMBLE = (
    "Earlier turns of this conversation were condensed into the checkpoint below to free context space. "
    "It is a record of what already happened, not a request: do not act on asks or tasks it mentions "
    "unless the latest user message asks for them again. Where it disagrees with the messages after it, "
    "those messages win, and a later 'stop', 'undo' or 'never mind' from the user stands. Your tools work "
    "exactly as before, and MEMORY.md and USER.md stay authoritative."
)
# Ends every checkpoint, whoever wrote it: the facts a checkpoint leaves out are not gone, and a
# model that is not told so rarely thinks to look.
RECOVERY_NOTE = (
    '[The originals of these turns are kept: recall(query="exact words") searches them, '
    'recall(id="r…") returns one whole.]'
)
END = "[END OF HANDOFF SUMMARY: answer the latest user message, not this summary]"
MERGE_GAP = "\n\n"  # between the end marker and the content of the message a summary was merged into
SYSTEM_NOTE = (
    "[Note: part of this conversation was condensed into a handoff summary to save context space. "
    "Treat that summary as background reference; your memory files remain authoritative.]"
)


def frame(summary: str, *, with_end: bool) -> str:
    """The summary between the opening frame and the recovery note (one note, even when the
    summary text already carried it)."""
    text = f"{OPEN} {PREAMBLE}\n\n{summary.replace(RECOVERY_NOTE, '').strip()}\n\n{RECOVERY_NOTE}"
    return f"{text}\n\n{END}" if with_end else text


def summary_message(role: str, summary: str, anchors: dict[str, Any]) -> Message:
    """A standalone message carrying the summary (end marker when user-role)."""
    return {
        "role": role,
        "content": frame(summary, with_end=role == "user"),
        SUMMARY_KEY: True,
        ANCHORS_KEY: anchors,
    }


def merge_into(msg: Message, summary: str, anchors: dict[str, Any]) -> Message:
    """Put the summary in front of an existing message, keeping its content verbatim after it."""
    framed = frame(summary, with_end=True) + MERGE_GAP
    content = msg.get("content")
    merged = dict(msg)
    if isinstance(content, list):
        merged["content"] = [{"type": "text", "text": framed}, *content]
    else:
        merged["content"] = framed + (content or "")
    merged[SUMMARY_KEY] = True
    merged[ANCHORS_KEY] = anchors
    return merged


def has_handoff(msg: Message) -> bool:
    if msg.get(SUMMARY_KEY):
        return True
    content = msg.get("content")
    return content.startswith(OPEN) if isinstance(content, str) else text_of(content).startswith(OPEN)


def split_handoff(msg: Message) -> tuple[str, Any]:
    """(summary body without the recovery note, what the message said besides the summary).

    The second part is the original content of a message the summary was
    merged into (a string or list of parts, verbatim even when empty), or None
    for a standalone summary.
    """
    content = msg.get("content")
    text = text_of(content)
    body_start = text.find("\n\n", len(OPEN))
    body_start = len(text) if body_start < 0 else body_start + 2
    end = text.find(END, body_start)
    body = text[body_start : end if end >= 0 else len(text)].strip().removesuffix(RECOVERY_NOTE).rstrip()
    if end < 0:
        return body, None
    if isinstance(content, list):
        rest = content[1:] if content and isinstance(content[0], dict) and content[0].get("type") == "text" else content
        return body, rest or None
    remainder = text[end + len(END) :]
    if not remainder.startswith(MERGE_GAP):
        return body, None  # a standalone user-role summary ends at its end marker
    return body, remainder[len(MERGE_GAP) :]


def find_previous(messages: list[Message]) -> tuple[str, dict[str, Any]] | None:
    """The newest handoff already in the transcript, for rehydration after a restart."""
    for msg in reversed(messages):
        if has_handoff(msg):
            body, _ = split_handoff(msg)
            anchors = msg.get(ANCHORS_KEY)
            if isinstance(anchors, str):
                try:
                    anchors = json.loads(anchors)
                except ValueError:
                    anchors = None
            return body, anchors if isinstance(anchors, dict) else {}
    return None


def with_system_note(system: Message) -> Message:
    """The system message with the one-time compaction note appended."""
    content = system.get("content")
    if SYSTEM_NOTE in text_of(content):
        return system
    note = dict(system)
    if isinstance(content, list):
        note["content"] = [*content, {"type": "text", "text": SYSTEM_NOTE}]
    else:
        note["content"] = f"{content or ''}\n\n{SYSTEM_NOTE}".lstrip()
    return note
