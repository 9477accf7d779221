"""/summary and /summary edit: the checkpoint the model reads, to look at, copy and correct.

The viewer is a scrollable page with a copy key (the terminal's clipboard,
through `App.copy_to_clipboard`). The editor is a `TextArea` on the same
text; saving hands it to `save`, which returns why it was refused or None.
A refused edit leaves the editor open with the text as typed and the reason
above it, so nothing the user wrote is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

Save = Callable[[str], "str | None"]  # the edited text -> why it was refused, or None when saved


class CheckpointViewer(ModalScreen[str | None]):
    """Dismissed with "edit" when the user asks to edit, else None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("c", "copy", "Copy"),
        Binding("e", "edit", "Edit"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer"):
            yield Static(Content("Checkpoint: what the model reads in place of the older turns"), id="viewer-title")
            with VerticalScroll(id="viewer-body"):
                yield Static(Content(self.text), id="viewer-text")
            yield Static("c copy · e edit · Esc or q close", id="viewer-hint")

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify(f"Copied the checkpoint ({len(self.text):,} characters).", markup=False)

    def action_edit(self) -> None:
        self.dismiss("edit")

    def action_dismiss(self, result: str | None = None) -> None:  # type: ignore[override]  # the editor dismisses with its text or None
        self.dismiss(result)


class CheckpointEditor(ModalScreen[bool]):
    """Dismissed with True once `save` accepted the text, False when the user gave up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, text: str, save: Save) -> None:
        super().__init__()
        self.original = text
        self.save = save
        self.error = Static("", id="editor-error", markup=False)
        self.area = TextArea(text, id="editor-text", soft_wrap=True)

    def compose(self) -> ComposeResult:
        with Vertical(id="editor"):
            yield Static(Content("Edit the checkpoint"), id="viewer-title")
            yield self.error
            yield self.area
            yield Static("Ctrl+S save · Esc cancel (the checkpoint stays as it was)", id="viewer-hint")

    def on_mount(self) -> None:
        self.error.display = False
        self.area.focus()

    def action_save(self) -> None:
        text = self.area.text
        if text.strip() == self.original.strip():
            self.dismiss(False)
            return
        reason = self.save(text)
        if reason is None:
            self.dismiss(True)
            return
        self.error.update(f"Not saved: {reason}.")
        self.error.display = True

    def action_cancel(self) -> None:
        self.dismiss(False)
