"""The mode badge in the status bar: which mode is on (default, accept-edits, plan).

Shift+Tab (the footer names it) moves to the next mode; see `HermesApp.action_cycle_mode`.
"""

from __future__ import annotations

from textual.widgets import Static

LABELS = {"default": "default mode", "accept-edits": "⏵⏵ accept edits", "plan": "⏸ plan mode"}


def badge_text(mode: str) -> str:
    """What the status bar says for `mode` (the footer names the key that changes it)."""
    return LABELS.get(mode, mode)


class ModeBadge(Static):
    """The mode, right of the meter in the status bar."""

    def __init__(self, mode: str | None = None, *, id: str | None = None) -> None:
        super().__init__(badge_text(mode) if mode else "", markup=False, id=id)
        self.mode = mode or ""  # "" until the session is open: a continued one has its own

    def show(self, mode: str) -> None:
        self.mode = mode
        self.set_class(mode == "plan", "-plan")
        self.set_class(mode == "accept-edits", "-accept")
        self.update(badge_text(mode))
