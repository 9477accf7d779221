"""The checkpoint written by code when no model summary can be had.

It carries the same headings as a model summary so the resumed agent finds
things where it expects them, and it says plainly that it is a stand-in and
how many messages it replaced, so nothing disappears without a trace.
"""

from __future__ import annotations

from .anchors import Anchors


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items) if items else "None recorded."


def fallback_checkpoint(anchors: Anchors, *, removed: int, reason: str, previous: str | None) -> str:
    """A deterministic checkpoint built only from code-owned anchors."""
    latest = f'"{anchors.users[0]}"' if anchors.users else "See the latest user message."
    first = f'"{anchors.users[-1]}"' if anchors.users else "Not recorded."
    done = [f"ran `{cmd}` -> exit {'?' if code is None else code}" for cmd, code in anchors.commands]
    done += [f"{action} {path}" for action, path in anchors.files if action != "read"]
    failed = [f"`{cmd}`: {line}" for cmd, _ in anchors.commands for line in anchors.failures.get(cmd, [])]
    sections = [
        f"## Active Task\n{latest}",
        f"## Goal\nEarliest request in the removed turns: {first}",
        f"## Completed Actions\n{_bullets(done)}",
        f"## Relevant Files\n{_bullets([path for _, path in anchors.files])}",
        f"## Remaining Work\n{_bullets(anchors.todos) if anchors.todos else 'Not known: check the recent messages.'}",
        f"## Critical Values\n{_bullets(failed + anchors.errors)}",
    ]
    if previous:
        sections.append(f"## Earlier Checkpoint\n{previous.strip()}")
    sections.append(
        f"[{removed} earlier message(s) were removed without a model-written summary ({reason}). "
        "This checkpoint was assembled by hermeslite from recorded facts; the originals stay in the "
        "session archive.]"
    )
    return "\n\n".join(sections)
