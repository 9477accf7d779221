"""A completion list that floats just above the prompt's cursor and never takes the focus.

The slash-command and `@file` dropdowns share this: they follow every edit
and cursor move of the prompt, hide when the prompt loses the focus, and
are offered the keys they use (`take_key`) before the prompt acts on them,
so Up/Down move in the list, Tab/Enter complete and Escape hides it.
A subclass says what is being typed, what to list and how to complete.
"""

from __future__ import annotations

from textual.geometry import Offset, Region, Spacing
from textual.message import Message
from textual.widgets import OptionList, TextArea

KEYS = ("up", "down", "tab", "enter", "escape")


class CursorDropdown(OptionList, can_focus=False):
    def __init__(self, target: TextArea, *, id: str) -> None:
        super().__init__(id=id)
        self.target = target
        self.shown_count = 0  # items listed now; 0 while closed

    def on_mount(self) -> None:
        self.target.message_signal.subscribe(self, self._target_message)
        self.watch(self.target, "selection", self.refresh_matches)
        self.watch(self.target, "has_focus", lambda focused: None if focused else self.close())

    def _target_message(self, message: Message) -> None:
        if isinstance(message, TextArea.Changed):
            self.refresh_matches()

    @property
    def open(self) -> bool:
        return bool(self.display) and self.shown_count > 0

    def before_cursor(self) -> str:
        """The prompt's text from its start up to the cursor."""
        return self.target.get_text_range((0, 0), self.target.cursor_location)

    def refresh_matches(self) -> None:
        """Refill and show (or hide) the list for what is typed now; called on every edit and cursor move."""
        raise NotImplementedError

    def complete(self, index: int) -> None:
        """Put the item at `index` in the prompt and hide the list."""
        raise NotImplementedError

    def enter_sends(self) -> bool:
        """Whether Enter should go to the prompt (send) rather than complete; False unless a subclass says."""
        return False

    def show(self, *, first: bool) -> None:
        """Display the list above the cursor; `first` highlights its first item (after a refill)."""
        if first:
            self.highlighted = 0
        self.display = True
        self.call_after_refresh(self._place)

    def close(self) -> None:
        self.display = False
        self.shown_count = 0

    def _place(self) -> None:
        """Just above the cursor, kept inside the screen."""
        x, y = self.target.cursor_screen_offset
        width, height = self.outer_size
        x, y, _w, _h = Region(x - 1, y - height, width, height).constrain(
            "inside", "none", Spacing.all(0), self.screen.scrollable_content_region
        )
        self.absolute_offset = Offset(x, y)

    def take_key(self, key: str) -> bool:
        """Up/Down move, Tab/Enter complete, Escape hides; True when the key was used."""
        if not self.open or key not in KEYS:
            return False
        if key == "enter" and self.enter_sends():
            self.close()
            return False
        if key == "escape":
            self.close()
        elif key in ("up", "down"):
            step = 1 if key == "down" else -1
            self.highlighted = ((self.highlighted or 0) + step) % self.shown_count
        else:
            self.complete(self.highlighted or 0)
        return True

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.complete(event.option_index)
