"""The session as JSON: the lossless form, from which the store's messages and records can be read back.

Messages keep every key the store holds (the `_hl_` bookkeeping included) in
the order of the conversation; each compaction is an item of the same list,
where it happened, with its whole record. Usage is one row per request.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from .view import CompactionMark, SessionView

VERSION = 1


def export_dict(view: SessionView) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for entry in view.entries:
        if isinstance(entry, CompactionMark):
            items.append({"type": "compaction", "number": entry.number, **asdict(entry.record)})
        else:
            items.append({"type": "message", "ref": entry.ref, "source": entry.source, "message": entry.message})
    totals = view.totals
    return {
        "version": VERSION,
        "session": {
            "id": view.session_id,
            "title": view.title,
            "model": view.model,
            "mode": view.mode,
            "cwd": view.cwd,
            "created_at": view.created_at,
            "updated_at": view.updated_at,
            "parent_id": view.parent_id,
        },
        "system": view.system,
        "items": items,
        "missing_messages": view.missing,
        "usage": {
            "requests": [asdict(r) for r in view.usage],
            "totals": {
                "requests": totals.requests,
                "prompt_tokens": totals.prompt_tokens,
                "cache_read_tokens": totals.cache_read_tokens,
                "cache_write_tokens": totals.cache_write_tokens,
                "completion_tokens": totals.completion_tokens,
                "cost_usd": totals.cost if totals.priced else None,
            },
        },
    }


def render_json(view: SessionView) -> str:
    return json.dumps(export_dict(view), ensure_ascii=False, indent=2, default=str) + "\n"
