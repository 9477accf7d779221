"""Memory notes asked for in the checkpoint request itself, so a compaction costs one call, not two.

The memory flush (flush.py) is a model call of its own before each
compaction: at an 8k window, with a compaction every few turns, those calls
were most of what compaction cost above its floor. When the checkpoint is
asked for as an extension of the live request (summary_request), the same
model reads the same conversation from the cache anyway, so the request asks
for one more section after the checkpoint: `## Memory Notes`, one durable
fact per line. The agent takes that section off the reply before the engine
sees it (it is no part of the checkpoint and must not be kept in the
transcript), and saves each note with the memory tool, as the flush would.

When no extension is sent (a separate summary model, a reactive pass, a
request that would not fit, a window too small for a model summary), or the
reply carries no such section, the separate flush runs instead: no
compaction goes without its chance to save memories.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from hermeslite.context.redact import redact_secrets
from hermeslite.context.summary_reply import SummaryReply
from hermeslite.tools.base import Tool, ToolContext

HEADING = "Memory Notes"
REQUEST = (
    f"\n\nAfter the checkpoint's last section, add one more: `## {HEADING}`. List there, one per line as "
    "`- user: ...` (about the user: preferences, corrections) or `- memory: ...` (facts about their project or "
    "environment, recurring patterns), what is worth keeping beyond this session. Skip task progress (the "
    "checkpoint keeps that) and anything already in memory. Write 'None.' if nothing is. This section is "
    "removed from the checkpoint and saved to memory."
)
MAX_NOTES = 8
NOTE_CHARS = 400
_SECTION = re.compile(rf"^[ \t]*#{{1,4}}[ \t]*{HEADING}[ \t]*:?[ \t]*$", re.IGNORECASE | re.MULTILINE)
_NEXT_HEADING = re.compile(r"^[ \t]*#{1,4}[ \t]*\S", re.MULTILINE)
_NOTE = re.compile(r"^[ \t]*[-*][ \t]+(?:(?P<target>user|memory)[ \t]*:[ \t]*)?(?P<text>.+?)[ \t]*$", re.IGNORECASE)
_NOTHING = re.compile(r"^\W*(?:none|nothing(?: to save)?)\W*$", re.IGNORECASE)


@dataclass(frozen=True)
class Note:
    target: str  # "user" or "memory", as the memory tool names its two files
    text: str


def split_notes(text: str) -> tuple[str, list[Note] | None]:
    """The checkpoint without its Memory Notes section, and the notes (None: the reply has no such section).

    Notes are kept beyond the session, so credentials in them are masked as in a checkpoint. The section runs to the next heading or the end, so a model that put it
    before a checkpoint section loses nothing of the checkpoint.
    """
    found = _SECTION.search(text)
    if found is None:
        return text, None
    after = _NEXT_HEADING.search(text, found.end())
    end = after.start() if after else len(text)
    notes = []
    for line in text[found.end() : end].splitlines():
        note = _NOTE.match(line)
        if note is None or _NOTHING.match(note.group("text")):
            continue
        target = (note.group("target") or "memory").lower()
        notes.append(Note(target, redact_secrets(note.group("text")[:NOTE_CHARS])))
    kept = (text[: found.start()].rstrip() + "\n\n" + text[end:].lstrip()).strip()
    return kept, notes[:MAX_NOTES]


@dataclass
class MemoryNotes:
    """The notes one compaction's checkpoint request brought back; `notes` is None until a reply held them."""

    notes: list[Note] | None = None

    def asking(self, send: Callable[[str], Awaitable[SummaryReply]]) -> Callable[[str], Awaitable[SummaryReply]]:
        """`send` with the notes asked for after the instruction and taken off the reply."""

        async def send_asking(instruction: str) -> SummaryReply:
            reply = await send(instruction + REQUEST)
            text, notes = split_notes(reply.text)
            if notes is not None:
                self.notes = (self.notes or []) + [n for n in notes if n not in (self.notes or [])]
            return SummaryReply(text, reply.finish_reason, reply.refusal)

        return send_asking

    async def save(self, memory_tool: Tool, ctx: ToolContext) -> int:
        """Add each note with the memory tool, as the flush's calls are applied; returns how many were saved."""
        saved = 0
        for note in self.notes or []:
            args = {"action": "add", "target": note.target, "content": note.text}
            if not (await memory_tool.run(args, ctx)).is_error:
                saved += 1
        return saved
