"""The slash-command dropdown: textual-autocomplete, pointed at a TextArea instead of an Input.

textual-autocomplete 4 assumes its target is an `Input` (`value`,
`cursor_position`, `Input.Changed`). The prompt is a multi-line `TextArea`,
so this subclass swaps the handful of places that touch the target, and
takes its keys from the prompt (which sees them first) instead of listening
after the fact: Enter must pick a command, not send a half-typed one.

The dropdown only appears while the first line is a bare `/word`; once a
space follows, the rest is the command's argument and the dropdown hides.
Items show the command, its argument and its one-line help, and sit above
the input because the input lives at the bottom of the screen.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.geometry import Offset, Region, Spacing
from textual.widgets import TextArea
from textual.widgets.option_list import Option
from textual_autocomplete import AutoComplete, DropdownItem, TargetState

Entry = tuple[str, str, str]   # ("/compress", "[focus]", "compact now, keeping [focus] in detail")


class SlashItem(DropdownItem):
    """`/compress [focus]  compact now, keeping [focus] in detail`; its value is just `/compress`."""

    def __init__(self, name: str, args: str, help: str, takes_args: bool) -> None:
        super().__init__(main=name)
        self.takes_args = takes_args
        label = Content.assemble((name, "bold"), " ", (args, "italic"), "  ", (help, "dim"))
        Option.__init__(self, label)


def search_string(state: TargetState) -> str | None:
    """The `/word` being typed, or None when the dropdown has nothing to offer."""
    text = state.text[: state.cursor_position]
    if not text.startswith("/") or "\n" in text or " " in text:
        return None
    return text


class SlashComplete(AutoComplete):
    def __init__(self, target: TextArea, entries: Callable[[], list[Entry]]) -> None:
        super().__init__(target, candidates=None, id="slash-complete")  # type: ignore[arg-type]  # a TextArea target, where the library types an Input
        self._entries = entries

    # -- the target is a TextArea --------------------------------------------

    @property
    def target(self) -> TextArea:  # type: ignore[override]  # the TextArea given to __init__
        return self._target  # type: ignore[return-value]  # the TextArea given to __init__

    def _get_target_state(self) -> TargetState:
        row, column = self.target.cursor_location
        first_line = self.target.text.split("\n", 1)[0]
        return TargetState(text=first_line, cursor_position=column if row == 0 else len(first_line) + 1)

    def _subscribe_to_target(self) -> None:
        self.watch(self.target, "has_focus", self._handle_focus_change)
        self.watch(self.target, "selection", self._align_and_rebuild)

    def _listen_to_messages(self, event) -> None:
        if isinstance(event, TextArea.Changed):
            self._handle_target_update()
            self.call_after_refresh(self._align_to_target)

    def _align_to_target(self) -> None:
        """Above the cursor, since the prompt sits at the bottom of the screen."""
        x, y = self.target.cursor_screen_offset
        width, height = self.option_list.outer_size
        x, y, _w, _h = Region(x - 1, y - height, width, height).constrain(
            "inside", "none", Spacing.all(0), self.screen.scrollable_content_region)
        self.absolute_offset = Offset(x, y)

    # -- candidates ------------------------------------------------------------

    def get_search_string(self, target_state: TargetState) -> str:
        return search_string(target_state) or ""

    def get_candidates(self, target_state: TargetState) -> list[DropdownItem]:
        if search_string(target_state) is None:
            return []
        return [SlashItem(name, args, help, bool(args)) for name, args, help in self._entries()]

    def get_matches(self, target_state: TargetState, candidates: list[DropdownItem], search: str) -> list[DropdownItem]:
        """Prefix matches first (what people expect of commands), fuzzy ones after."""
        if not search:
            return []
        lowered = search.lower()
        prefix = [c for c in candidates if c.value.lower().startswith(lowered)]
        rest = [c for c in candidates if c not in prefix and self.match(search, c.value)[0] > 0]
        return prefix + rest

    def should_show_dropdown(self, search: str) -> bool:
        count = self.option_list.option_count
        if not search or count == 0:
            return False
        only = self.option_list.get_option_at_index(0)
        return not (count == 1 and getattr(only, "value", None) == search)

    # -- keys, forwarded by the prompt ----------------------------------------

    @property
    def open(self) -> bool:
        return bool(self.display) and self.option_list.option_count > 0

    def take_key(self, key: str) -> bool:
        """Up/Down move, Tab/Enter complete, Escape hides; True when the key was used.

        Enter on a whole command name sends it: "/compress" also fuzzily matches
        "/uncompress", and completing would swallow the Enter the user meant.
        """
        options = self.option_list
        if not self.open or key not in ("up", "down", "tab", "enter", "escape"):
            return False
        if key == "enter" and search_string(self._get_target_state()) in {e[0] for e in self._entries()}:
            self.action_hide()
            return False
        if key == "escape":
            self.action_hide()
        elif key in ("up", "down"):
            step = 1 if key == "down" else -1
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count
        else:
            self._complete(options.highlighted or 0)
        return True

    def apply_completion(self, value: str, state: TargetState) -> None:
        option = self.option_list.get_option_at_index(self.option_list.highlighted or 0)
        text = value + (" " if getattr(option, "takes_args", False) else "")
        self.target.text = text
        self.target.move_cursor((0, len(text)))
