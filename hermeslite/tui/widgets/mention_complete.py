"""The `@file` dropdown: the project's files, matched fuzzily as the user types `@src/ca`.

It opens while the word before the cursor starts with `@` (at the start of
the text or after whitespace), floating above the cursor like the slash
dropdown, and like it never takes the focus: the prompt offers it Up, Down,
Tab, Enter and Escape first. Tab or Enter replaces the word with `@path `.

The files are listed in a thread worker (a git subprocess or a walk) when the
widget mounts, and listed again, off the UI thread, when a new `@` word starts
and the list is older than `STALE_S`; until then the old list answers. Each
keystroke's matching runs in a thread worker too (`refresh_matches`).
"""

from __future__ import annotations

import re
import time
from functools import partial
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
        self._query: str | None = None  # the query last asked for; None after the list was closed
        self._asked = 0  # the number of the newest match request; only its answer is shown

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
        """Ask for the matches of the `@` word at the cursor (or hide the list when there is none).

        Matching 50,000 paths can take longer than a frame, so it runs in a thread worker and the
        keystroke returns at once; the list shown stays until the new matches come. Each request
        is numbered, and only the newest one's answer is shown (`_matched`): an older query's
        answer, however late it comes, is dropped, and its scan stops at its next chunk. The
        number does what an `exclusive` worker group would, without cancelling workers: a thread
        cannot be stopped anyway, and a cancelled worker makes `workers.wait_for_complete` raise.
        """
        query = self.typed()
        if query is None:
            self.close()
            return
        if query == "" and self.listed_at is not None and time.monotonic() - self.listed_at > STALE_S:
            self._relist()
        if query == self._query:
            return
        self._query = query
        self._asked += 1
        asked = self._asked
        self.run_worker(partial(self._match, asked, query), thread=True, group="mention-match")

    def _match(self, asked: int, query: str) -> None:
        """On a worker thread: the matches of request `asked`, handed to the UI thread unless superseded."""
        shown = self.index.match(query, cancelled=lambda: asked != self._asked)
        if asked == self._asked:
            self.app.call_from_thread(self._matched, asked, query, shown)

    def _matched(self, asked: int, query: str, shown: list[str]) -> None:
        """Show the matches of request `asked`, unless a newer request was made since."""
        if asked != self._asked:
            return
        if not shown or shown == [query]:
            self._hide()
            return
        self._shown = shown
        self.set_options(Option(path) for path in shown)
        self.shown_count = len(shown)
        self.show(first=True)

    def close(self) -> None:
        """Hide the list, and let no answer still on its way open it again."""
        self._asked += 1
        self._query = None
        self._hide()

    def _hide(self) -> None:
        super().close()
        self._shown = []

    def complete(self, index: int) -> None:
        """Replace the `@` word at the cursor with the chosen path and a space."""
        path = self._shown[index]
        query = self.typed() or ""
        row, col = self.target.cursor_location
        self.close()
        self.target.replace(f"{path} ", (row, col - len(query)), (row, col))
