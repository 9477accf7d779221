"""The bar above the input that says the context is nearly full, and what to do about it.

Hidden below `warn_at`; `-warning` from there, `-critical` from 95%; hidden
again as soon as a compaction brings the pressure back down. Visibility is a
CSS class, so the layout reflows instead of leaving a blank line.
"""

from __future__ import annotations

from textual.widgets import Static

from ..format import warning_text
from .pressure_meter import level_of


class WarningBar(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.level = "normal"

    def show(self, pressure) -> None:
        self.level = level_of(pressure)
        self.set_class(self.level == "warning", "-warning")
        self.set_class(self.level == "critical", "-critical")
        if self.level != "normal":
            self.update(warning_text(pressure.tokens, pressure.threshold, pressure.paused))

    @property
    def is_shown(self) -> bool:
        return self.level != "normal"
