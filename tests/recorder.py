"""Collecting what an agent emits, for tests that look at its events."""

from __future__ import annotations

from typing import Any

from hermeslite.agent import events as ev


class Recorder:
    """Every event an agent emits, in order; subscribe it with `agent.subscribe(recorder)`."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def text(self) -> str:
        return "".join(e.text for e in self.of(ev.TextDelta))
