"""The slash-command dropdown: an `OptionList` floating just above the prompt.

It appears while the text before the cursor is a bare `/word` on the first
line; once a space follows, the rest is the command's argument and the
dropdown hides. Items show the command, its argument hint and its one-line
help; prefix matches come first (what people expect of commands), fuzzy
ones after. It sits above the input because the input lives at the bottom
of the screen.

It never takes the focus: the prompt sees every key first and offers the
dropdown the ones it uses (`take_key`; not `handle_key`, which is Widget's), so Enter picks a command instead of
sending a half-typed one.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.fuzzy import Matcher
from textual.widgets import TextArea
from textual.widgets.option_list import Option

from .cursor_dropdown import CursorDropdown

Entry = tuple[str, str, str]  # ("/compress", "[focus]", "compact now, keeping [focus] in detail")


def search_string(before_cursor: str) -> str | None:
    """The `/word` being typed (the prompt's text up to the cursor), or None when there is nothing to offer."""
    if not before_cursor.startswith("/") or "\n" in before_cursor or " " in before_cursor:
        return None
    return before_cursor


def matches(search: str, entries: list[Entry]) -> list[Entry]:
    """Entries whose name starts with `search`, then those that match it fuzzily."""
    lowered = search.lower()
    prefix = [e for e in entries if e[0].lower().startswith(lowered)]
    matcher = Matcher(search)
    return prefix + [e for e in entries if e not in prefix and matcher.match(e[0]) > 0]


class SlashComplete(CursorDropdown):
    DEFAULT_CSS = """
    SlashComplete {
        overlay: screen;
        display: none;
        width: auto;
        height: auto;
        max-height: 12;
        border: none;
        padding: 0;
        background: $surface;
        scrollbar-size-vertical: 1;
        text-wrap: nowrap;
        max-width: 100%;
        text-overflow: ellipsis;  /* a help cut at the screen's edge says so */
    }
    """

    def __init__(self, target: TextArea, entries: Callable[[], list[Entry]]) -> None:
        super().__init__(target, id="slash-complete")
        self._entries = entries
        self._shown: list[Entry] = []

    def typed(self) -> str | None:
        """The `/word` before the prompt's cursor, if any."""
        return search_string(self.before_cursor())

    def refresh_matches(self) -> None:
        search = self.typed()
        shown = matches(search, self._entries()) if search else []
        if not shown or (len(shown) == 1 and shown[0][0] == search):
            self.close()
            return
        refill = shown != self._shown
        if refill:
            self._shown = shown
            self.set_options(
                Option(Content.assemble((name, "bold"), " ", (args, "italic"), "  ", (help, "dim")))
                for name, args, help in shown
            )
        self.shown_count = len(shown)
        self.show(first=refill)

    def close(self) -> None:
        super().close()
        self._shown = []

    def enter_sends(self) -> bool:
        """Enter on a whole command name sends it: "/compress" also fuzzily matches
        "/uncompress", and completing would swallow the Enter the user meant."""
        return self.typed() in {e[0] for e in self._entries()}

    def complete(self, index: int) -> None:
        """Put the chosen command in the prompt, followed by a space when it takes an argument."""
        name, args, _help = self._shown[index]
        text = name + (" " if args else "")
        self.close()
        self.target.text = text
        self.target.move_cursor((0, len(text)))
