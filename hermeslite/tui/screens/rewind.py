"""The /rewind screens: pick a turn, pick what goes back, then see what changes and confirm.

The picker lists the session's turns, oldest first with the newest
highlighted (the one usually wanted), each with what it did to the files.
The choice is Claude Code's three: the files and the conversation, the
conversation only, or the files only; a fourth, "summarize up to here",
restores nothing and runs `/compress --upto` through that turn instead (the
earlier turns become a summary, the later ones stay verbatim). Nothing is restored before the
confirmation, which shows the preview (the diffstat, and the files changed
by hand since hermeslite last saw them: those are overwritten only with the
explicit `o`, never with Enter). /undo uses the same confirmation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from hermeslite.commands.session_table import when
from hermeslite.commands.views import first_line, turn_files
from hermeslite.display import neutralize

if TYPE_CHECKING:
    from hermeslite.agent.rewind import TurnRow

RESTORE, OVERWRITE = "restore", "overwrite"
CHOICE_LABELS = (
    ("both", "Files and conversation", "b"),
    ("chat", "Conversation only", "c"),
    ("code", "Files only", "f"),
)
SUMMARIZE = "summarize"  # not a rewind: /compress --upto through the turn
SUMMARIZE_LABEL = ("Summarize up to here (keeps the files and later turns)", "s")
NO_TURNS = "No turns yet in this session: nothing to rewind."


def turn_label(row: TurnRow, width: int = 70) -> Content:
    """`3  "the turn's text"` and under it, dimmed, when it ran and what it did to the files."""
    files = turn_files(row.files, row.undone) or "no file changes"
    facts = f"{when(row.at)} · {files}"
    return Content.assemble(f"{row.number:>3}  ", neutralize(first_line(row.text, width)), (f"\n     {facts}", "dim"))


class TurnPicker(ModalScreen[int | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, rows: Sequence[TurnRow]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Rewind to just before a turn · Enter to choose · Esc to close", id="picker-title")
            if not self.rows:
                yield Static(NO_TURNS, id="picker-empty")
            yield OptionList(*(Option(turn_label(row), id=str(row.number)) for row in self.rows), id="picker-list")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.rows:
            options.highlighted = len(self.rows) - 1

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0) or None)

    def action_close(self) -> None:
        self.dismiss(None)


class RewindChoice(ModalScreen[str | None]):
    """What goes back to before the turn (b, c, f), or summarizing through it (s); Enter on an
    entry chooses it, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Cancel"),
        *(Binding(key, f"choose('{choice}')", label, show=False) for choice, label, key in CHOICE_LABELS),
        Binding(SUMMARIZE_LABEL[1], f"choose('{SUMMARIZE}')", SUMMARIZE_LABEL[0], show=False),
    ]

    def __init__(self, turn: int, text: str) -> None:
        super().__init__()
        self.turn, self.text = turn, text

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-choice"):
            yield Static(f"Rewind to before turn {self.turn}", id="rewind-title")
            yield Static(Content(neutralize(first_line(self.text))), id="rewind-turn")
            yield OptionList(
                *(Option(f"{label}  ({key})", id=choice) for choice, label, key in CHOICE_LABELS),
                Option(f"{SUMMARIZE_LABEL[0]}  ({SUMMARIZE_LABEL[1]})", id=SUMMARIZE),
                id="rewind-options",
            )
            yield Static(
                "Enter or b/c/f/s to choose · Esc to cancel · nothing is restored before you confirm", id="rewind-hint"
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def action_close(self) -> None:
        self.dismiss(None)


class RestoreConfirm(ModalScreen[str | None]):
    """The preview and the answer: RESTORE (Enter or y), OVERWRITE (o, when files were changed by
    hand: Enter then only cancels), or None (Esc or n)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "close", "Cancel"),
        Binding("y", "restore", "Restore", show=False),
        Binding("o", "overwrite", "Overwrite", show=False),
    ]

    def __init__(self, title: str, lines: Sequence[str], hand_changed: Sequence[str]) -> None:
        super().__init__()
        self.title_text = title
        self.body = neutralize("\n".join(lines))
        self.hand_changed = tuple(hand_changed)

    def compose(self) -> ComposeResult:
        with Vertical(id="restore-confirm"):
            yield Static(Content(self.title_text), id="restore-title")
            with ScrollableContainer(id="restore-body"):
                yield Static(Content(self.body), id="restore-text")
            with Horizontal(id="restore-buttons"):
                if self.hand_changed:
                    yield Button("Overwrite my edits and restore (o)", id=OVERWRITE, variant="error")
                else:
                    yield Button("Restore (y)", id=RESTORE, variant="warning")
                yield Button("Cancel (n)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel" if self.hand_changed else f"#{RESTORE}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        choice = event.button.id
        self.dismiss(choice if choice in (RESTORE, OVERWRITE) else None)

    def action_restore(self) -> None:
        if not self.hand_changed:
            self.dismiss(RESTORE)

    def action_overwrite(self) -> None:
        if self.hand_changed:
            self.dismiss(OVERWRITE)

    def action_close(self) -> None:
        self.dismiss(None)
