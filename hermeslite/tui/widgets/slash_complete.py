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
from textual.geometry import Offset, Region, Spacing
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

Entry = tuple[str, str, str]  # ("/compress", "[focus]", "compact now, keeping [focus] in detail")
KEYS = ("up", "down", "tab", "enter", "escape")


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


class SlashComplete(OptionList, can_focus=False):
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
        super().__init__(id="slash-complete")
        self.target = target
        self._entries = entries
        self._shown: list[Entry] = []

    def on_mount(self) -> None:
        self.target.message_signal.subscribe(self, self._target_message)
        self.watch(self.target, "selection", self.refresh_matches)
        self.watch(self.target, "has_focus", lambda focused: None if focused else self.close())

    def _target_message(self, message: Message) -> None:
        if isinstance(message, TextArea.Changed):
            self.refresh_matches()

    @property
    def open(self) -> bool:
        return bool(self.display) and bool(self._shown)

    def typed(self) -> str | None:
        """The `/word` before the prompt's cursor, if any."""
        return search_string(self.target.get_text_range((0, 0), self.target.cursor_location))

    def refresh_matches(self) -> None:
        """Refill and show (or hide) the list for what is typed now; called on every edit and cursor move."""
        search = self.typed()
        shown = matches(search, self._entries()) if search else []
        if not shown or (len(shown) == 1 and shown[0][0] == search):
            self.close()
            return
        if shown != self._shown:
            self._shown = shown
            self.set_options(
                Option(Content.assemble((name, "bold"), " ", (args, "italic"), "  ", (help, "dim")))
                for name, args, help in shown
            )
            self.highlighted = 0
        self.display = True
        self.call_after_refresh(self._place)

    def close(self) -> None:
        self.display = False
        self._shown = []

    def _place(self) -> None:
        """Just above the cursor, kept inside the screen."""
        x, y = self.target.cursor_screen_offset
        width, height = self.outer_size
        x, y, _w, _h = Region(x - 1, y - height, width, height).constrain(
            "inside", "none", Spacing.all(0), self.screen.scrollable_content_region
        )
        self.absolute_offset = Offset(x, y)

    def take_key(self, key: str) -> bool:
        """Up/Down move, Tab/Enter complete, Escape hides; True when the key was used.

        Enter on a whole command name sends it: "/compress" also fuzzily matches
        "/uncompress", and completing would swallow the Enter the user meant.
        """
        if not self.open or key not in KEYS:
            return False
        if key == "enter" and self.typed() in {e[0] for e in self._entries()}:
            self.close()
            return False
        if key == "escape":
            self.close()
        elif key in ("up", "down"):
            step = 1 if key == "down" else -1
            self.highlighted = ((self.highlighted or 0) + step) % len(self._shown)
        else:
            self.complete(self.highlighted or 0)
        return True

    def complete(self, index: int) -> None:
        """Put the chosen command in the prompt, followed by a space when it takes an argument."""
        name, args, _help = self._shown[index]
        text = name + (" " if args else "")
        self.close()
        self.target.text = text
        self.target.move_cursor((0, len(text)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.complete(event.option_index)
