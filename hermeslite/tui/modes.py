"""The session's mode in the app: its badge in the status bar, Shift+Tab, and the plan card.

The badge says which mode is on (default, accept-edits, plan). Shift+Tab
moves to the next one; during a turn the change waits for the turn to end,
as `/mode` does, so a command already started keeps the rules it began with.
In plan mode the model's last reply of a turn is its plan: it comes up as a
card with two one-key answers, Approve (switch to default and tell the
model to go ahead) or Keep planning (close the card and go on talking).
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown, Static

from hermeslite.display import neutralize

from .screens.approval import TYPING_GAP

LABELS = {"default": "default mode", "accept-edits": "⏵⏵ accept edits", "plan": "⏸ plan mode"}
APPROVE, KEEP = "approve", "keep"
TYPED_TITLE = "Plan ready · keys typed as this opened were ignored: press a to approve, k to keep planning"


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


class PlanCard(ModalScreen[str]):
    """The model's plan, with Approve (a) and Keep planning (k, or Esc).

    It can open while the user types a follow-up, and "and ..." must not approve a plan unread:
    as in the approval dialog, a key within TYPING_GAP of the one before it (or of the card
    opening) is typing, swallowed, and the title says to press a or k."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "answer('approve')", "Approve"),
        Binding("k", "answer('keep')", "Keep planning"),
        Binding("escape", "answer('keep')", "Keep planning", show=False),
    ]

    def __init__(self, plan: str, *, last_typed: float = 0.0) -> None:
        super().__init__()
        self.plan = plan
        # Monotonic time of the user's last key (in the input or here), or of the card opening if later.
        self.last_key = max(last_typed, time.monotonic())

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-card"):
            yield Static("Plan ready · a approves it, k keeps planning", id="plan-title")
            with VerticalScroll(id="plan-body"):
                yield Markdown(neutralize(self.plan), id="plan-text")
            with Horizontal(id="plan-buttons"):
                yield Button(Content("a  Approve and proceed"), id=APPROVE, variant="primary")
                yield Button(Content("k  Keep planning"), id=KEEP)

    def on_key(self, event: events.Key) -> None:
        now = time.monotonic()
        typing, self.last_key = now - self.last_key < TYPING_GAP, now
        if typing and event.key != "escape":
            event.stop()
            event.prevent_default()
            self.query_one("#plan-title", Static).update(TYPED_TITLE)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or KEEP)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
