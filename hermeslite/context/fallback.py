"""The checkpoint written by code when no model summary can be had.

It carries the same headings as a model summary so the resumed agent finds
things where it expects them, and it says plainly that it is a stand-in and
how many messages it replaced, so nothing disappears without a trace.

It carries forward only the last model-written checkpoint, never an earlier
stand-in: those were built from the same anchors, so nesting them would make
every failed summary a little longer than the one before.
"""

from __future__ import annotations

import re

from .anchors import HEADING, Anchors, is_written
from .clip import clip_end
from .instructions import render_instruction

EARLIER = "## Earlier Checkpoint\n"
STAND_IN = "were removed without a model-written summary"
STAND_IN_NOTE = re.compile(r"\n\n\[\d+ earlier message\(s\) " + STAND_IN)


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items) if items else "None recorded."


def model_written(previous: str | None, limit_chars: int) -> str | None:
    """The part of a previous checkpoint a model wrote, without the recorded facts, at most `limit_chars`."""
    if not previous:
        return None
    text = previous
    notes = list(STAND_IN_NOTE.finditer(text))
    if notes:  # a stand-in: only the model-written checkpoint it carried counts
        at = text.find(EARLIER)
        if at < 0 or at > notes[-1].start():
            return None
        text = text[at + len(EARLIER) : notes[-1].start()]
    at = text.find(HEADING)
    if at >= 0:
        text = text[:at]
    text = text.strip()
    return clip_end(text, limit_chars) or None


def fallback_checkpoint(anchors: Anchors, *, removed: int, reason: str, previous: str | None) -> str:
    """A deterministic checkpoint built only from code-owned anchors (and the last model-written one)."""
    latest = f'"{anchors.users[0]}"' if anchors.users else "See the latest user message."
    first = f'"{anchors.users[-1]}"' if anchors.users else "Not recorded."
    rules = [render_instruction(text, note)[2:] for text, note in anchors.instructions]
    done = [f"ran `{cmd}` -> exit {'?' if code is None else code}" for cmd, code in anchors.commands]
    done += [f"{action} {path}" for action, path in anchors.files if is_written([action, path])]
    failed = [f"`{cmd}`: {line}" for cmd, _ in anchors.commands for line in anchors.failures.get(cmd, [])]
    sections = [
        f"## Active Task\n{latest}",
        f"## Goal\nEarliest request in the removed turns: {first}",
        f"## Constraints & Preferences\n{_bullets(rules)}",
        f"## Completed Actions\n{_bullets(done)}",
        f"## Relevant Files\n{_bullets([path for _, path in anchors.files])}",
        "## Remaining Work\nNot known: check the recent messages and the todo list, if one is attached.",
        f"## Critical Values\n{_bullets(failed + anchors.errors)}",
    ]
    if previous:
        sections.append(f"{EARLIER}{previous.strip()}")
    sections.append(
        f"[{removed} earlier message(s) {STAND_IN} ({reason}). "
        "This checkpoint was assembled by hermeslite from recorded facts; the originals stay in the "
        "session archive.]"
    )
    return "\n\n".join(sections)
