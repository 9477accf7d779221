"""A braille spinner for work in progress (a running tool, a compaction).

It stops itself when the work ends, and is built still (`motion=False`, from
`HermesApp(motion=False)` through the chat view) so snapshot tests never catch
a frame mid-turn.
"""

from __future__ import annotations

from textual.timer import Timer
from textual.widgets import Static

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
INTERVAL = 0.1


class Spinner(Static):
    """Shows `FRAMES[n] label` while spinning, then whatever `stop` is given."""

    def __init__(self, label: str = "", *, classes: str = "", motion: bool = True) -> None:
        super().__init__(label, markup=False, classes=classes)
        self.label = label
        self.motion = motion
        self._frame = 0
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self._render_frame()
        if self.motion:
            self._timer = self.set_interval(INTERVAL, self._tick)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(FRAMES)
        self._render_frame()

    def _render_frame(self) -> None:
        self.update(f"{FRAMES[self._frame]} {self.label}")

    def stop(self, text: str) -> None:
        """End the animation and show `text` instead."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.update(text)
