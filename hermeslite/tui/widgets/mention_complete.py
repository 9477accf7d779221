"""The `@file` dropdown: the project's files, matched fuzzily as the user types `@src/ca`.

It opens while the word before the cursor starts with `@` (at the start of
the text or after whitespace), floating above the cursor like the slash
dropdown, and like it never takes the focus: the prompt offers it Up, Down,
Tab, Enter and Escape first. Tab or Enter replaces the word with `@path `.

The files are listed in a thread worker (a git subprocess or a walk) when the
widget mounts, and listed again, off the UI thread, when a new `@` word starts
and the list is older than `STALE_S`; until then the old list answers.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from textual.widgets import TextArea
from textual.widgets.option_list import Option

from hermeslite.agent.file_index import FileIndex, list_files

from .cursor_dropdown import CursorDropdown

STALE_S = 10.0
WORD = re.compile(r"(?:^|(?<=\s))@(?P<query>[^\s@]*)$")


def mention_query(before_cursor: str) -> str | None:
    """The path typed after `@` in the word that ends at the cursor, or None when that word is no mention."""
    found = WORD.search(before_cursor)
    return found.group("query") if found else None


class MentionComplete(CursorDropdown):
    DEFAULT_CSS = """
    MentionComplete {
        overlay: screen;
        display: none;
        width: auto;
        height: auto;
        max-height: 10;
        min-width: 30;
        border: none;
        padding: 0;
        background: $surface;
        scrollbar-size-vertical: 1;
        text-wrap: nowrap;
        max-width: 100%;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, target: TextArea, root: Path) -> None:
        super().__init__(target, id="mention-complete")
        self.root = root
        self.index = FileIndex()
        self.listed_at: float | None = None  # monotonic time of the last listing; None: never
        self._listing = False
        self._shown: list[str] = []
        self._query: str | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self._relist()

    def _relist(self) -> None:
        if not self._listing:
            self._listing = True
            self.run_worker(self._list, thread=True, group="mention-index", exclusive=True)

    def _list(self) -> None:
        paths = list_files(self.root)
        self.app.call_from_thread(self._listed, paths)

    def _listed(self, paths: list[str]) -> None:
        self.index.replace(paths)
        self.listed_at = time.monotonic()
        self._listing = False
        self._query = None
        self.refresh_matches()

    def typed(self) -> str | None:
        return mention_query(self.before_cursor())

    def refresh_matches(self) -> None:
        """Refill and show (or hide) the list for the `@` word at the cursor."""
        query = self.typed()
        if query is None:
            self.close()
            return
        if query == "" and self.listed_at is not None and time.monotonic() - self.listed_at > STALE_S:
            self._relist()
        if query == self._query and self._shown:
            return
        shown = self.index.match(query)
        self._query = query
        if not shown or shown == [query]:
            self.close()
            return
        self._shown = shown
        self.set_options(Option(path) for path in shown)
        self.shown_count = len(shown)
        self.show(first=True)

    def close(self) -> None:
        super().close()
        self._shown = []
        self._query = None

    def complete(self, index: int) -> None:
        """Replace the `@` word at the cursor with the chosen path and a space."""
        path = self._shown[index]
        query = self.typed() or ""
        row, col = self.target.cursor_location
        self.close()
        self.target.replace(f"{path} ", (row, col - len(query)), (row, col))
