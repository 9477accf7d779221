"""The context-pressure meter: always visible, so compaction never comes as a surprise.

It measures against the compaction threshold, not the raw window: 100% means
"compacts now". Colour comes from CSS classes (-normal / -warning /
-critical), so themes decide what warning looks like.
"""

from __future__ import annotations

from textual.widgets import Static

from hermeslite.context.pressure import Pressure

from ..format import pressure_line

LEVELS = ("normal", "warning", "critical")


def level_of(pressure: Pressure) -> str:
    """The CSS class suffix for `pressure`: normal, warning or critical."""
    return pressure.level.value


class PressureMeter(Static):
    """`42.1k / 100k tokens · 42% · ▰▰▰▰▱▱▱▱▱▱ · window 200k`."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("context: measuring…", markup=False, id=id, classes="-normal")
        self.level = "normal"

    def show(self, pressure: Pressure) -> None:
        self.level = level_of(pressure)
        for level in LEVELS:
            self.set_class(level == self.level, f"-{level}")
        self.update(pressure_line(pressure.tokens, pressure.threshold, pressure.context_length))
