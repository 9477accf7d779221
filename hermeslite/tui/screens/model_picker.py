"""The /model picker: the models to switch to, filtered as you type; Enter picks, Escape closes.

The list is built off the frame (it imports litellm, ~3 s the first time):
the screen opens at once with "Loading…" and fills when its worker is done.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from hermeslite.agent.model_list import ModelChoice
from hermeslite.commands.model_table import choice_facts
from hermeslite.display import neutralize

Loader = Callable[[], Awaitable[list[ModelChoice]]]
LOADING = "Loading the models…"
NONE_MATCH = "No model matches; Enter switches to the name as typed."


def matches(choice: ModelChoice, query: str) -> bool:
    """Every word typed appears in the name or its facts, in any case and order."""
    text = f"{choice.name} {choice_facts(choice)}".lower()
    return all(word in text for word in query.lower().split())


def choice_label(choice: ModelChoice) -> Content:
    """The name on its own line, the facts dimmed under it."""
    return Content.assemble(neutralize(choice.name), "\n  ", (choice_facts(choice), "dim"))


class ModelPicker(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("pagedown", "page(1)", show=False, priority=True),
        Binding("pageup", "page(-1)", show=False, priority=True),
    ]

    def __init__(self, load: Loader, current: str) -> None:
        """`current`: a line on the model in use (its window, where it compacts), shown above the list."""
        super().__init__()
        self.load = load
        self.current = current
        self.choices: Sequence[ModelChoice] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Switch model · type to filter · Enter to switch · Esc to close", id="picker-title")
            yield Static(self.current, id="picker-current")
            yield Input(placeholder="filter, e.g. claude or gpt 4o", id="model-filter")
            yield Static(LOADING, id="picker-status")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self.run_worker(self._fill(), exclusive=True)

    async def _fill(self) -> None:
        self.choices = await self.load()
        self._show(self.query_one("#model-filter", Input).value)

    def _show(self, query: str) -> None:
        options = self.query_one("#picker-list", OptionList)
        shown = [choice for choice in self.choices if matches(choice, query)]
        options.set_options(Option(choice_label(choice), id=choice.name) for choice in shown)
        if shown:
            options.highlighted = 0
        status = self.query_one("#picker-status", Static)
        status.update(NONE_MATCH if not shown and query.strip() else "")
        status.display = not shown

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.choices:
            self._show(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter picks the highlighted model, or with none shown, the name typed (checked by /model NAME)."""
        event.stop()
        options = self.query_one("#picker-list", OptionList)
        if options.highlighted is not None and options.option_count:
            self.dismiss(options.get_option_at_index(options.highlighted).id)
        elif self.choices and event.value.strip():
            self.dismiss(event.value.strip())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_move(self, step: int) -> None:
        options = self.query_one("#picker-list", OptionList)
        (options.action_cursor_down if step > 0 else options.action_cursor_up)()

    def action_page(self, step: int) -> None:
        options = self.query_one("#picker-list", OptionList)
        (options.action_page_down if step > 0 else options.action_page_up)()

    def action_close(self) -> None:
        self.dismiss(None)
