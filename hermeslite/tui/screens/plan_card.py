"""The plan card: in plan mode, the model's last reply of a turn is its plan, shown with two
one-key answers. Approve (a) switches to default mode and tells the model to carry the plan out;
Keep planning (k, or Esc) closes the card and the conversation goes on in plan mode.
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

from .approval import TYPING_GAP

APPROVE, KEEP = "approve", "keep"
TYPED_TITLE = "Plan ready · keys typed as this opened were ignored: press a to approve, k to keep planning"


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
