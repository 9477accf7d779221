"""The line that says the conversation went on below while the user was reading further up.

Without it, a user who scrolled up to reread something sees a still chat and
cannot tell that the reply finished or a tool failed. It shows only while
something unseen is below, and a click (or Ctrl+End) jumps to the end.
"""

from __future__ import annotations

from textual.events import Click
from textual.message import Message
from textual.widgets import Static

TEXT = "↓ new messages below · Ctrl+End or click to jump to the end"


class NewBelow(Static):
    class Jump(Message):
        """The user asked to go to the newest message."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(TEXT, markup=False, id=id)

    def show(self, unseen: bool) -> None:
        self.set_class(unseen, "-shown")

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Jump())
