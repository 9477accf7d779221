"""The todo list kept on screen above the input while the agent works through it.

The todo tool's changes arrive as `TodosChanged` events; the pane redraws from
them and never takes the focus, so typing goes on in the input. `display.todo_pane`
decides when it shows: auto while some item is open, on always once there is a
list, off never; Ctrl+T flips what the setting decided until the next change.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from hermeslite.agent.events import TodoEntry
from hermeslite.display import neutralize

MARKS = {"pending": "○", "in_progress": "▶", "completed": "✓", "cancelled": "✗"}
MOST_SHOWN = 4  # items drawn; the rest are counted, so the pane leaves the chat room at 24 rows


def todo_lines(items: tuple[TodoEntry, ...]) -> Content:
    """The items with their marks, open ones first, then a count of what did not fit."""
    open_first = sorted(items, key=lambda item: item.status not in ("in_progress", "pending"))
    done = sum(item.status == "completed" for item in items)
    lines = [Content.styled(f"Todos {done}/{len(items)} done · Ctrl+T hides", "bold")]
    for item in open_first[:MOST_SHOWN]:
        style = "dim" if item.status in ("completed", "cancelled") else ""
        lines.append(Content.styled(f"{MARKS.get(item.status, '?')} {neutralize(item.content)}", style))
    if len(items) > MOST_SHOWN:
        lines.append(Content.styled(f"… {len(items) - MOST_SHOWN} more (/todo shows all)", "dim"))
    return Content("\n").join(lines)


class TodoPane(Static):
    can_focus = False

    def __init__(self, mode: str, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.mode = mode  # auto | on | off (display.todo_pane)
        self.items: tuple[TodoEntry, ...] = ()
        self.flipped = False  # Ctrl+T since the last change

    def show_items(self, items: tuple[TodoEntry, ...]) -> None:
        self.items, self.flipped = items, False
        self.update(todo_lines(items))
        self._place()

    def toggle(self) -> None:
        self.flipped = not self.flipped
        self._place()

    def wanted(self) -> bool:
        """Whether the setting alone shows the pane now."""
        has_open = any(item.status in ("pending", "in_progress") for item in self.items)
        return bool(self.items) and (self.mode == "on" or (self.mode == "auto" and has_open))

    def _place(self) -> None:
        self.display = bool(self.items) and (self.wanted() != self.flipped)
