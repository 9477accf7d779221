"""/diff: the session's changes as a coloured unified diff, scrollable both ways.

Lines are not wrapped (a folded diff line misleads), so the view scrolls
sideways too. Added lines are green, removed red, hunk headers cyan, file
headers bold. Escape or q closes it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..diff_text import diff_content


class DiffViewer(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, title: str, diff: str) -> None:
        super().__init__()
        self.title_text = title
        self.diff = diff

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer"):
            yield Static(Content(self.title_text), id="viewer-title")
            with ScrollableContainer(id="viewer-body"):
                body = Static(diff_content(self.diff), id="diff-text")
                body.styles.width = max((Content(line).cell_length for line in self.diff.split("\n")), default=1)
                yield body
            yield Static("Esc or q to close · ↑/↓ PgUp/PgDn scroll · ←/→ scroll sideways", id="viewer-hint")

    def on_mount(self) -> None:
        self.query_one("#viewer-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
