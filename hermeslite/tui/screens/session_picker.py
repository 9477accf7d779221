"""The /resume picker: recent sessions, newest first; Enter resumes, Escape closes."""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hermeslite.display import neutralize, plural


def when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def session_label(info, current: str | None) -> Content:
    mark = "● " if info.id == current else "  "
    title = neutralize(info.title or "(untitled)")
    return Content.assemble(
        mark, (when(info.updated_at), "dim"), "  ", (f"{plural(info.message_count, 'message'):>14}", "dim"), "  ", title
    )


class SessionPicker(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, sessions: list, current: str | None) -> None:
        super().__init__()
        self.sessions = sessions
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Resume a session · Enter to open · Esc to close", id="picker-title")
            yield OptionList(
                *(Option(session_label(s, self.current), id=s.id) for s in self.sessions), id="picker-list"
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
