"""A read-only page for /help, /context, /sessions, /memory and /todo.

A modal rather than lines in the chat: these are looked at, not part of the
conversation, and the model never sees them. Escape or q closes it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hermeslite.display import neutralize


class TextViewer(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, body: str | Content) -> None:
        super().__init__()
        self.title_text = title
        self.body = body if isinstance(body, Content) else Content(neutralize(body))

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer"):
            yield Static(Content(self.title_text), id="viewer-title")
            with VerticalScroll(id="viewer-body"):
                yield Static(self.body, id="viewer-text")
            yield Static("Esc or q to close", id="viewer-hint")

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]  # the viewer dismisses with no result
        self.dismiss(result)
