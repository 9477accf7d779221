"""The `recall` tool: bring back what compaction pruned or summarized away.

Every original a compaction removed is in the session archive under a recall
id; pruned placeholders end with `[pruned; recall id r0123456789]`. The model
gets originals back two ways: `recall(id=...)` returns one whole (capped,
keeping head and tail), and `recall(query=...)` searches the archive (see
archive_search.py) and lists the best matches with their ids and an excerpt,
for the facts a checkpoint left out and no placeholder points to.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from hermeslite.context.messages import (
    Message,
    call_arguments,
    call_id,
    call_name,
    image_parts,
    text_of,
    tool_calls_of,
)
from hermeslite.tools.base import ToolContext, ToolResult

from .archive_search import ArchiveHit, search_terms

if TYPE_CHECKING:
    from .sessions import SessionStore

RECALL_LIMIT = 30_000
SEARCH_RESULTS = 5
REF_RE = re.compile(r"\br[0-9a-f]{10}\b")
MODEL_OPEN_HINT = 'recall(id="…") returns one whole'

RECALL_DESCRIPTION = """\
Get back what context compaction shortened or removed from this conversation; every original is kept. \
recall(query="a few distinctive words") searches the compacted messages and tool outputs and returns \
the best matches, each with its id and an excerpt: use the exact names, values, paths or error words \
you are looking for. recall(id="r0123456789") returns one original whole; ids appear in placeholders \
such as "[pruned; recall id r0123456789]" and in search results. Use it when you need an exact value, \
output or earlier request that the checkpoint does not carry and cannot cheaply re-run the tool."""


def render_original(msg: Message, tool_name: str | None = None) -> str:
    """An archived message as text for the model, with a line saying what it was."""
    role = str(msg.get("role") or "message")
    text = text_of(msg.get("content"))
    if role == "tool":
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
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return (
        text[:head]
        + f"\n…[{cut} of {len(text)} chars omitted: recall returns at most {limit} chars]…\n"
        + text[-tail:]
    )


def show_query(query: str, limit: int = 80) -> str:
    """A query as quoted in a result line: whitespace collapsed, at most `limit` chars."""
    flat = " ".join(query.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def hit_label(hit: ArchiveHit) -> str:
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
        return (f'No match for "{shown}" among the {archived} compacted original(s) of this session; '
                "try other words (exact names, paths, values, error text).")
    count = f"{'the best ' if len(hits) >= limit else ''}{len(hits)} {'match' if len(hits) == 1 else 'matches'}"
    lines = [f'{count[0].upper()}{count[1:]} for "{shown}" among {archived} compacted original(s), best first; '
             f"{open_hint}:"]
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


def as_ref(text: str) -> str:
    """The recall id inside `text` (a bare id, or a whole placeholder), else `text` as given."""
    match = REF_RE.search(text)
    return match.group(0) if match else text


class RecallTool:
    """`recall(query=...)` searches the current session's archive; `recall(id=...)` returns one original."""

    name = "recall"
    description = RECALL_DESCRIPTION
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "query": {"type": "string",
                      "description": "words to search the compacted messages for; returns the best matches "
                                     "with their ids"},
            "id": {"type": "string",
                   "description": "a recall id from a placeholder or a search result, e.g. r0123456789; "
                                  "returns that original whole"},
        },
        "additionalProperties": False,
    }

    def __init__(
        self,
        store: SessionStore,
        session_id_getter: Callable[[], str | None],
        limit: int = RECALL_LIMIT,
        results: int = SEARCH_RESULTS,
    ) -> None:
        self.store = store
        self.session_id_getter = session_id_getter
        self.limit = limit
        self.results = results

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        args = args if isinstance(args, dict) else {}
        ref, query = str(args.get("id") or "").strip(), str(args.get("query") or "").strip()
        if not ref and not query:
            return ToolResult('error: give query="words to search for" or id="r0123456789"', is_error=True)
        if not ref and not search_terms(query):
            return ToolResult(f"error: the query {show_query(query)!r} has no words or numbers to search for",
                              is_error=True)
        session_id = self.session_id_getter()
        if not session_id:
            return ToolResult("error: there is no saved session to recall from", is_error=True)
        try:
            if ref:
                return await asyncio.to_thread(self._recall, session_id, as_ref(ref))
            return await asyncio.to_thread(self._search, session_id, query)
        except Exception as exc:  # a locked or broken database must not end the turn
            return ToolResult(f"error: could not read the session archive: {exc}", is_error=True)

    def _recall(self, session_id: str, ref: str) -> ToolResult:
        text = original_text(self.store, session_id, ref, self.limit)
        if text is None:
            return ToolResult(
                f"error: nothing archived under {ref!r} in this session; copy the id exactly from the "
                "placeholder or search result (r followed by 10 hex digits), or search with query=",
                is_error=True,
            )
        return ToolResult(text)

    def _search(self, session_id: str, query: str) -> ToolResult:
        return ToolResult(search_report(self.store, session_id, query, self.results, MODEL_OPEN_HINT))
