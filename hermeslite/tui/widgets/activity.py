"""The status line's right side: what the agent is doing now ("thinking", "running terminal").

A retried model call waits a few seconds, sometimes a minute, and a line that
just says "thinking" meanwhile looks hung. So a retry counts its wait down
here ("retrying in 4 s (rate limited, attempt 1/3)") until the call goes
out again (then the line says what it said before) or the next event says
something else.
"""

from __future__ import annotations

import math
import time

from textual.timer import Timer
from textual.widgets import Static

from hermeslite.display import neutralize

TICK = 0.25


def retry_status(reason: str, attempt: int, max_retries: int, remaining: float) -> str:
    """`retrying in 4 s (rate limited, attempt 1/3)`; never `in 0 s`."""
    return f"retrying in {max(1, math.ceil(remaining))} s ({reason}, attempt {attempt}/{max_retries})"


class ActivityLine(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.text = ""
        self._timer: Timer | None = None

    def show(self, activity: str) -> None:
        """Say what is going on now; ends any countdown."""
        self._stop()
        self._write(activity)

    def count_down(self, reason: str, attempt: int, max_retries: int, delay: float, *, then: str) -> None:
        """Count `delay` seconds down, then show `then` (what was going on before the retry)."""
        self._stop()
        deadline = time.monotonic() + delay

        def tick() -> None:
            remaining = deadline - time.monotonic()
            if remaining > 0:
                self._write(retry_status(reason, attempt, max_retries, remaining))
            else:
                self._stop()
                self._write(then)

        tick()
        self._timer = self.set_interval(TICK, tick)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _write(self, text: str) -> None:
        self.text = text
        self.update(f"● {neutralize(text)}" if text else "")
