"""The status line's right side: what the agent is doing now ("thinking", "running terminal").

A retried model call waits a few seconds, sometimes a minute, and a line that
just says "thinking" meanwhile looks hung. So a retry counts its wait down
here ("retrying in 4 s (rate limited, attempt 1/3)") until the call goes
out again or the next event says something else.
"""

from __future__ import annotations

import time

from textual.timer import Timer
from textual.widgets import Static

from hermeslite.display import neutralize

TICK = 0.25


def retry_status(reason: str, attempt: int, max_retries: int, remaining: float) -> str:
    """`retrying in 4 s (rate limited, attempt 1/3)`, then `retrying now (...)`."""
    when = f"in {max(1, round(remaining))} s" if remaining > 0.5 else "now"
    return f"retrying {when} ({reason}, attempt {attempt}/{max_retries})"


class ActivityLine(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.text = ""
        self._timer: Timer | None = None

    def show(self, activity: str) -> None:
        """Say what is going on now; ends any countdown."""
        self._stop()
        self._write(activity)

    def count_down(self, reason: str, attempt: int, max_retries: int, delay: float) -> None:
        self._stop()
        deadline = time.monotonic() + delay

        def tick() -> None:
            remaining = deadline - time.monotonic()
            self._write(retry_status(reason, attempt, max_retries, remaining))
            if remaining <= 0:
                self._stop()

        tick()
        self._timer = self.set_interval(TICK, tick)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _write(self, text: str) -> None:
        self.text = text
        self.update(f"● {neutralize(text)}" if text else "")
