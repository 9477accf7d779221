"""/export: the open session written to a file, for the front ends (which reach the store only through the agent)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermeslite.errors import UserFacingError
from hermeslite.store.errors import StoreError

if TYPE_CHECKING:
    from .loop import Agent


@dataclass(frozen=True)
class ExportReport:
    path: Path | None  # None: nothing was written, `text` says why
    text: str  # the one line for the user


def export_session(agent: Agent, target: str | None) -> ExportReport:
    """Write the session to `target` (format from its suffix; none: Markdown under a clear name in the project)."""
    from hermeslite.export import load_view, write_export

    target = (target or "").strip() or None
    try:
        view = load_view(agent.deps.store, agent.session_id)
        path = write_export(view, target, Path(agent.deps.cwd))
    except (UserFacingError, StoreError) as exc:
        return ExportReport(None, f"export failed: {exc}")
    turns = sum(1 for m in view.messages if m.message.get("role") == "user")
    marks = len(view.compactions)
    what = f"{turns} user message{'s' * (turns != 1)}, {marks} compaction{'s' * (marks != 1)}"
    return ExportReport(path, f"exported this session ({what}) → {path}")
