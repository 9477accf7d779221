"""The /resume picker: recent sessions, newest first; Enter resumes, Escape closes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hermeslite.agent.session_list import SessionRow
from hermeslite.commands.session_table import EMPTY, session_cells
from hermeslite.display import neutralize, plural

FACT_GAP = " · "
FACT_INDENT = "  "
MORE = "…"


def session_facts(row: SessionRow) -> list[str]:
    """What `hermeslite sessions` prints beside a title, most useful first: a narrow screen
    drops them from the end. A handoff's origin comes early: it is what tells two sessions of
    the same task apart, and at the end even a wide screen dropped it."""
    cells = session_cells(row)
    facts = [
        cells["when"],
        plural(row.message_count, "message"),
        cells["origin"],
        f"{cells['context']} context" if row.context_tokens is not None else "",
        cells["model"],
        cells["id"],
    ]
    return [fact for fact in facts if fact]


def fitted_facts(facts: Sequence[str], width: int | None) -> str:
    """The facts joined, cut to `width` cells and ended with an ellipsis. The fact the cut falls
    in keeps its head when at least half of it shows (`anthropic/claude-so…`) and goes whole
    otherwise, since a stub (`2026…`) says nothing. With no width, all of them."""
    line = FACT_GAP.join(facts)
    if width is None or Content(line).cell_length <= width:
        return line
    shown = ""  # the facts that fit whole, each followed by its gap
    for fact in facts:
        room = width - Content(shown).cell_length - len(MORE)
        size = Content(fact).cell_length
        if size > room:
            return shown + (Content(fact).truncate(room).plain if 2 * room >= size else "") + MORE
        if size + len(FACT_GAP) > room:
            return shown + fact + " " + MORE if size + 1 <= room else shown + MORE
        shown += fact + FACT_GAP
    return line


def session_label(row: SessionRow, width: int | None = None) -> Content:
    """The title on its own line, where the eye looks for it, then the facts under it, dimmed and
    cut to `width` cells so an entry is always two lines (a title too long is cut by the list's
    ellipsis)."""
    cells = session_cells(row)
    facts = fitted_facts(session_facts(row), None if width is None else width - len(FACT_INDENT))
    title = neutralize(row.title) if row.title else cells["title"]  # the table's cut is for its column only
    return Content.assemble(f"{cells['mark']} ", title, f"\n{FACT_INDENT}", (facts, "dim"))


class SessionList(OptionList):
    """The options, relabelled to the list's width whenever it changes."""

    def __init__(self, rows: Sequence[SessionRow]) -> None:
        super().__init__(*(Option(session_label(row), id=row.id) for row in rows), id="picker-list")
        self.rows = rows

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width - self.get_component_styles("option-list--option").padding.width
        for index, row in enumerate(self.rows):
            self.replace_option_prompt_at_index(index, session_label(row, width))


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
            yield SessionList(self.rows)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
