"""The /resume picker: recent sessions, newest first; Enter resumes, Escape closes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hermeslite.agent.session_list import SessionRow
from hermeslite.commands.session_table import EMPTY, session_cells
from hermeslite.display import plural

FACT_GAP = " · "


def session_label(row: SessionRow) -> Content:
    """The title on its own line, where the eye looks for it, then the facts `hermeslite sessions`
    prints beside it, dimmed; two lines, so a long title never pushes them off a narrow screen."""
    cells = session_cells(row)
    facts = [
        cells["when"],
        plural(row.message_count, "message"),
        f"{cells['context']} in context" if row.context_tokens is not None else "",
        cells["model"],
        cells["id"],
        cells["origin"],
    ]
    return Content.assemble(
        f"{cells['mark']} ", cells["title"], "\n  ", (FACT_GAP.join(fact for fact in facts if fact), "dim")
    )


class SessionPicker(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, rows: Sequence[SessionRow]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Resume a session · Enter to open · Esc to close", id="picker-title")
            if not self.rows:
                yield Static(EMPTY, id="picker-empty")
            yield OptionList(*(Option(session_label(row), id=row.id) for row in self.rows), id="picker-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
