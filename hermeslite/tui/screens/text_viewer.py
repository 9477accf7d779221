"""A read-only page for /help, /context, /sessions, /memory and /todo.

A modal rather than lines in the chat: these are looked at, not part of the
conversation, and the model never sees them. Escape or q closes it. Text
wraps under its second column (see hanging.py); a table (/sessions) does not
wrap at all, since a row folded onto two lines no longer lines up with its
header: it scrolls sideways instead.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hermeslite.display import neutralize

from ..hanging import hang


class HangingText(Static):
    """Text rewrapped to its width whenever that changes, continuations under their column."""

    def __init__(self, text: str, **kwargs) -> None:
        super().__init__(Content(text), **kwargs)
        self.text = text
        self.wrapped_at = 0

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self.wrapped_at:
            self.wrapped_at = event.size.width
            self.update(Content(hang(self.text, event.size.width)))


class TextViewer(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, body: str, *, table: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.body = neutralize(body)
        self.table = table

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer"):
            yield Static(Content(self.title_text), id="viewer-title")
            with ScrollableContainer(id="viewer-body"):
                if self.table:
                    table = Static(Content(self.body), id="viewer-table")
                    table.styles.width = max(Content(line).cell_length for line in self.body.split("\n"))
                    yield table
                else:
                    yield HangingText(self.body, id="viewer-text")
            hint = "Esc or q to close · ←/→ scroll sideways" if self.table else "Esc or q to close"
            yield Static(hint, id="viewer-hint")

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]  # the viewer dismisses with no result
        self.dismiss(result)
