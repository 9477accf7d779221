"""The session's mode in the app: its badge in the status bar, Shift+Tab, and the plan card.

The badge says which mode is on (default, accept-edits, plan). Shift+Tab
moves to the next one; during a turn the change waits for the turn to end,
as `/mode` does, so a command already started keeps the rules it began with.
In plan mode the model's last reply of a turn is its plan: it comes up as a
card with two one-key answers, Approve (switch to default and tell the
model to go ahead) or Keep planning (close the card and go on talking).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown, Static

from hermeslite.display import neutralize

LABELS = {"default": "default", "accept-edits": "⏵⏵ accept edits", "plan": "⏸ plan mode"}
APPROVE, KEEP = "approve", "keep"


def badge_text(mode: str) -> str:
    """What the status bar says for `mode`, with the key that changes it."""
    return f"{LABELS.get(mode, mode)} (shift+tab)"


class ModeBadge(Static):
    """The mode, right of the meter in the status bar."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(badge_text("default"), markup=False, id=id)
        self.mode = "default"

    def show(self, mode: str) -> None:
        self.mode = mode
        self.set_class(mode == "plan", "-plan")
        self.set_class(mode == "accept-edits", "-accept")
        self.update(badge_text(mode))


class PlanCard(ModalScreen[str]):
    """The model's plan, with Approve (a) and Keep planning (k, or Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "answer('approve')", "Approve"),
        Binding("k", "answer('keep')", "Keep planning"),
        Binding("escape", "answer('keep')", "Keep planning", show=False),
    ]

    def __init__(self, plan: str) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-card"):
            yield Static("Plan ready · the model changed nothing", id="plan-title")
            with VerticalScroll(id="plan-body"):
                yield Markdown(neutralize(self.plan), id="plan-text")
            with Horizontal(id="plan-buttons"):
                yield Button("[a] Approve: leave plan mode and proceed", id=APPROVE, variant="primary")
                yield Button("[k] Keep planning", id=KEEP)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or KEEP)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
