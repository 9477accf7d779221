"""The /resume picker: recent sessions, newest first, narrowed as the user types; Enter resumes
the highlighted one, Escape closes.

The search box keeps the focus the whole time: arrows move the list's highlight from it, so
typing, choosing and opening never need a Tab."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from hermeslite.agent.session_list import SessionRow
from hermeslite.commands.session_table import EMPTY, session_cells
from hermeslite.display import neutralize, plural

FACT_GAP = " · "
FACT_INDENT = "  "
MORE = "…"


def session_facts(row: SessionRow) -> list[str]:
    """What `hermeslite sessions` prints beside a title but the id, most useful first: a narrow
    screen drops them from the end. A handoff's origin comes early: it is what tells two sessions
    of the same task apart, and at the end even a wide screen dropped it. The id is not among
    them: `session_label` keeps it whole, apart from what gets cut."""
    cells = session_cells(row)
    facts = [
        cells["when"],
        plural(row.message_count, "message"),
        cells["origin"],
        f"{cells['context']} context" if row.context_tokens is not None else "",
        cells["model"],
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
    ellipsis). The id ends the line whole at any width: it is what `--resume` takes, so the
    other facts are shortened or dropped to make room for it."""
    cells = session_cells(row)
    room = None if width is None else max(0, width - len(FACT_INDENT) - len(FACT_GAP) - len(cells["id"]))
    facts = FACT_GAP.join(part for part in (fitted_facts(session_facts(row), room), cells["id"]) if part)
    title = neutralize(row.title) if row.title else cells["title"]  # the table's cut is for its column only
    return Content.assemble(f"{cells['mark']} ", title, f"\n{FACT_INDENT}", (facts, "dim"))


def search_text(row: SessionRow) -> str:
    """What a query is matched against: the title (the first user message's opening line), the
    last-active date as listed, the model and the id, lower-cased."""
    cells = session_cells(row)
    return " ".join([row.title or "", cells["when"], row.model or "", row.id]).casefold()


def matching(rows: Sequence[SessionRow], query: str) -> list[SessionRow]:
    """The rows holding every word of `query`, in any order and any field, keeping their order:
    `parser 11-27` finds the parser session of the 27th of November."""
    words = query.casefold().split()
    return [row for row in rows if all(word in search_text(row) for word in words)]


class SessionList(OptionList):
    """The options, relabelled to the list's width whenever it changes, and refilled with the
    rows a query leaves."""

    def __init__(self, rows: Sequence[SessionRow]) -> None:
        super().__init__(*(Option(session_label(row), id=row.id) for row in rows), id="picker-list")
        self.rows = rows
        self.label_width: int | None = None

    def on_resize(self, event: events.Resize) -> None:
        self.label_width = (
            self.scrollable_content_region.width - self.get_component_styles("option-list--option").padding.width
        )
        for index, row in enumerate(self.rows):
            self.replace_option_prompt_at_index(index, session_label(row, self.label_width))

    def show(self, rows: Sequence[SessionRow]) -> None:
        """Only `rows`, the first highlighted."""
        self.rows = rows
        self.set_options(Option(session_label(row, self.label_width), id=row.id) for row in rows)
        self.highlighted = 0 if rows else None


class SessionPicker(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("up", "move('cursor_up')", show=False),
        Binding("down", "move('cursor_down')", show=False),
        Binding("pageup", "move('page_up')", show=False),
        Binding("pagedown", "move('page_down')", show=False),
    ]

    def __init__(self, rows: Sequence[SessionRow]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Resume a session · type to filter · Enter to open · Esc to close", id="picker-title")
            yield Input(placeholder="title, first message, date or model", id="picker-search")
            yield Static(EMPTY, id="picker-empty", classes="" if not self.rows else "-hidden")
            yield SessionList(self.rows)

    def on_mount(self) -> None:
        self.query_one(SessionList).highlighted = 0 if self.rows else None

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        shown = matching(self.rows, event.value)
        self.query_one(SessionList).show(shown)
        empty = self.query_one("#picker-empty", Static)
        empty.update(EMPTY if not self.rows else f"No session matches {event.value.strip()!r}.")
        empty.set_class(bool(shown), "-hidden")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(SessionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    async def action_move(self, action: str) -> None:
        """Move the list's highlight while the search box keeps the focus."""
        await self.query_one(SessionList).run_action(action)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
