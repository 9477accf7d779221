"""Messages typed while a turn runs, shown under the input until they are sent.

Typing ahead is normal (a correction, the next step), so nothing typed
during a turn is thrown away: it waits here, in order, and the app sends it
when the turn ends, however it ends. Until then it can still be taken back:
Up on an empty input returns the newest one for editing, and a click removes
the one clicked. One line per message (the first line of it), hidden while
the queue is empty so it costs no space.
"""

from __future__ import annotations

from textual.content import Content
from textual.events import Click, Resize
from textual.widgets import Static

from hermeslite.display import clip

LABEL = "⏸ queued  "
HINT = "  ↑ takes back · click removes"  # fits beside a 40-character message at 80 columns
SHOWN_CHARS = 60  # of each message, until the widget knows its width
MIN_SHOWN = 12  # narrower than this, the hint goes before the message is cut further


class QueuedMessages(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.items: list[str] = []

    def push(self, text: str) -> None:
        self.items.append(text)
        self._redraw()

    def pop_first(self) -> str | None:
        """The oldest waiting message, leaving the queue to be sent."""
        return self.remove_at(0)

    def pop_last(self) -> str | None:
        """The newest waiting message, taken back into the input."""
        return self.remove_at(len(self.items) - 1)

    def remove_at(self, index: int) -> str | None:
        if not 0 <= index < len(self.items):
            return None
        text = self.items.pop(index)
        self._redraw()
        return text

    def on_click(self, event: Click) -> None:
        event.stop()
        self.remove_at(event.y)

    def on_resize(self, event: Resize) -> None:
        self._redraw()

    def _redraw(self) -> None:
        """One line per message, each cut so that the line, and the hint after the last, fit the width."""
        self.set_class(bool(self.items), "-waiting")
        last = len(self.items) - 1
        width = self.content_size.width
        room = width - len(LABEL) if width else SHOWN_CHARS + len(HINT)
        hint = HINT if room - len(HINT) >= MIN_SHOWN else ""
        lines = [
            Content.assemble(
                (LABEL, "bold"),
                clip(text, max(1, room - len(hint if i == last else ""))),
                (hint if i == last else "", "dim"),
            )
            for i, text in enumerate(self.items)
        ]
        self.update(Content("\n").join(lines))
