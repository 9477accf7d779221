"""The session archive as text: one original whole, or the best matches of a search.

Every original a compaction removed is in the session archive under a recall
id; pruned placeholders end with `[pruned; recall id r0123456789]`. The
model's `recall` tool (tools/recall.py) and the user's /recall
(agent/recall.py) read it through these functions and show the same text;
only the hint on how to open one original differs. Search itself is
archive_search.py.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hermeslite.context.clip import clip_line, keep_ends
from hermeslite.context.messages import (
    SUMMARY_KEY,
    Message,
    call_arguments,
    call_id,
    call_name,
    image_parts,
    text_of,
    tool_calls_of,
)

from .archive_search import ArchiveHit

if TYPE_CHECKING:
    from .sessions import SessionStore

RECALL_LIMIT = 30_000
REF_RE = re.compile(r"\br[0-9a-f]{10}\b")


def render_original(msg: Message, tool_name: str | None = None) -> str:
    """An archived message as text for the model, with a line saying what it was."""
    role = str(msg.get("role") or "message")
    text = text_of(msg.get("content"))
    if msg.get(SUMMARY_KEY):
        head = "[original earlier checkpoint]"
    elif role == "tool":
        head = f"[original output of {tool_name or msg.get('name') or 'a tool'} call {msg.get('tool_call_id', '?')}]"
    else:
        head = f"[original {role} message]"
    lines = [head]
    if text:
        lines.append(text)
    for call in tool_calls_of(msg):
        lines.append(f"[tool call {call_id(call)}: {call_name(call)} with arguments {call_arguments(call)}]")
    images = image_parts(msg.get("content"))
    if images:
        lines.append(f"[{images} image(s) in the original cannot be returned as text]")
    if len(lines) == 1:
        lines.append("(the original had no text)")
    return "\n".join(lines)


def cap(text: str, limit: int = RECALL_LIMIT) -> str:
    """`text`, or its head and tail with a note in between when longer than `limit`."""
    head = limit * 2 // 3

    def note(cut: int) -> str:
        return f"\n…[{cut} of {len(text)} chars omitted: recall returns at most {limit} chars]…\n"

    return keep_ends(text, head, limit - head, note)


def show_query(query: str, limit: int = 80) -> str:
    """A query quoted for a result line: whitespace collapsed, at most `limit` chars, in quote marks it does
    not itself contain, so `"deploy key"` typed with its quotes does not read as `""deploy key""`."""
    shown = clip_line(query, limit)
    if '"' not in shown:
        return f'"{shown}"'
    return f"'{shown}'" if "'" not in shown else f"\u201c{shown}\u201d"


def hit_label(hit: ArchiveHit) -> str:
    if hit.checkpoint:
        return "earlier checkpoint"
    if hit.role == "tool":
        return f"output of {hit.tool}" if hit.tool else "tool output"
    return f"{hit.role or 'unknown'} message"


def render_search(query: str, hits: list[ArchiveHit], archived: int, limit: int, open_hint: str) -> str:
    """Search results as text: a line saying what was found, then each hit's id, kind and excerpt.

    `open_hint` tells the reader how to get one original whole (the tool call
    for the model, the command for the user).
    """
    if archived == 0:
        return "Nothing in this session has been compacted yet, so there is nothing to search."
    shown = show_query(query)
    if not hits:
        return (
            f"No match for {shown} among the {archived} compacted original(s) of this session; "
            "try other words (exact names, paths, values, error text)."
        )
    count = f"{'the best ' if len(hits) >= limit else ''}{len(hits)} {'match' if len(hits) == 1 else 'matches'}"
    lines = [
        f"{count[0].upper()}{count[1:]} for {shown} among {archived} compacted original(s), best first; {open_hint}:"
    ]
    for n, hit in enumerate(hits, 1):
        lines += [f"{n}. {hit.ref} · {hit_label(hit)}", f"   {hit.excerpt or '(no text)'}"]
    return "\n".join(lines)


def search_report(store: SessionStore, session_id: str, query: str, limit: int, open_hint: str) -> str:
    """Search `session_id`'s archive for `query` and render the best `limit` matches."""
    hits = store.search_archive(session_id, query, limit)
    return render_search(query, hits, store.archived_count(session_id), limit, open_hint)


def original_text(store: SessionStore, session_id: str, ref: str, limit: int = RECALL_LIMIT) -> str | None:
    """The archived original under `ref`, rendered and capped, or None when there is none."""
    original = store.recall(session_id, ref)
    if original is None:
        return None
    tool_name = None
    if original.get("role") == "tool" and not original.get("name"):
        call = store.find_tool_call(session_id, str(original.get("tool_call_id") or ""))
        tool_name = call_name(call) if call else None
    return cap(render_original(original, tool_name), limit)
