"""The `recall` tool: the model brings back what compaction pruned or summarized away.

`recall(id=...)` returns one archived original whole (capped, keeping head
and tail), and `recall(query=...)` searches the archive and lists the best
matches with their ids and an excerpt, for the facts a checkpoint left out
and no placeholder points to. Reading and rendering the archive is
store/archive_text.py, shared with the user's /recall.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from hermeslite.context.tool_roles import ToolRole
from hermeslite.store.archive_search import search_terms
from hermeslite.store.archive_text import RECALL_LIMIT, REF_RE, original_text, search_report, show_query
from hermeslite.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from hermeslite.store.sessions import SessionStore

SEARCH_RESULTS = 5
MODEL_OPEN_HINT = 'recall(id="…") returns one whole'

RECALL_DESCRIPTION = """\
Get back what context compaction shortened or removed from this conversation; every original is kept. \
recall(query="a few distinctive words") searches the compacted messages and tool outputs and returns \
the best matches, each with its id and an excerpt: use the exact names, values, paths or error words \
you are looking for. recall(id="r0123456789") returns one original whole; ids appear in placeholders \
such as "[pruned; recall id r0123456789]" and in search results. Use it when you need an exact value, \
output or earlier request that the checkpoint does not carry and cannot cheaply re-run the tool."""


def as_ref(text: str) -> str:
    """The recall id inside `text` (a bare id, or a whole placeholder), else `text` as given."""
    match = REF_RE.search(text)
    return match.group(0) if match else text


class RecallTool:
    """`recall(query=...)` searches the current session's archive; `recall(id=...)` returns one original."""

    name = "recall"
    role: ToolRole | None = ToolRole.RECALLS
    writes = False
    description = RECALL_DESCRIPTION
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "words to search the compacted messages for; returns the best matches with their ids",
            },
            "id": {
                "type": "string",
                "description": "a recall id from a placeholder or a search result, e.g. r0123456789; "
                "returns that original whole",
            },
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
            return ToolResult.error('give query="words to search for" or id="r0123456789"')
        if not ref and not search_terms(query):
            return ToolResult.error(f"the query {show_query(query)} has no words or numbers to search for")
        session_id = self.session_id_getter()
        if not session_id:
            return ToolResult.error("there is no saved session to recall from")
        try:
            if ref:
                return await asyncio.to_thread(self._recall, session_id, as_ref(ref))
            return await asyncio.to_thread(self._search, session_id, query)
        except Exception as exc:  # a locked or broken database must not end the turn
            return ToolResult.error(f"could not read the session archive: {exc}")

    def _recall(self, session_id: str, ref: str) -> ToolResult:
        text = original_text(self.store, session_id, ref, self.limit)
        if text is None:
            return ToolResult.error(
                f"nothing archived under {ref!r} in this session; copy the id exactly from the "
                "placeholder or search result (r followed by 10 hex digits), or search with query="
            )
        return ToolResult(text)

    def _search(self, session_id: str, query: str) -> ToolResult:
        return ToolResult(search_report(self.store, session_id, query, self.results, MODEL_OPEN_HINT))
