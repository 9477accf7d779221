"""The session archive as tools see it: where output over the cap is kept whole (tools/spill.py).

The terminal, search and MCP tools cap what the model reads; the rest of a long
output goes here, under the same kind of recall id a compaction gives its
originals, so `recall` and `/recall` find its middle as they find anything
compacted away.
"""

from __future__ import annotations

import asyncio

from hermeslite.context.messages import reference_id
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.base import Archive


def session_archive(store: SessionStore, session_id: str) -> Archive:
    """An `Archive` that keeps a tool's (redacted) text in `session_id`'s archive and returns its recall id."""

    async def keep(tool: str, text: str) -> str:
        original = {"role": "tool", "name": tool, "content": text}
        ref = reference_id(original)
        await asyncio.to_thread(store.archive, session_id, {ref: original})
        return ref

    return keep
