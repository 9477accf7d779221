"""Agent events, in order, drawn by one task at the pace the screen can take.

A fast model sends thousands of text deltas a second. Routing each one
through the app's message queue would put them ahead of the user's key
presses (that queue is first in, first out), so typing would lag seconds
behind a stream. And handing the Markdown widget everything that piled up
would make one huge parse-and-mount step, a visible freeze.

So the agent's subscriber only appends to this feed (consecutive text is
merged), and a single drawing task takes events out one at a time, text in
bounded slices, awaiting each slice's rendering before taking the next. Keys
go through the app's queue untouched; the order of events is kept exactly.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass

from hermeslite.agent.events import Event, TextDelta

MAX_SLICE = 800  # characters of text handed to the Markdown widget per step


@dataclass(frozen=True)
class Settled:
    """Not from the agent: put in the feed by the app when a turn's worker has ended, so the next
    queued message is sent only after everything the turn said has been drawn."""


Drawn = Event | Settled  # what the drawing task takes out of the feed


class EventFeed:
    def __init__(self) -> None:
        self._items: deque[Drawn | list[str]] = deque()  # events, or a list[str] of merged text deltas
        self._wake = asyncio.Event()
        self.drawing = False  # the drawing task is handling an event

    def __call__(self, event: Drawn) -> None:
        """The agent subscriber: synchronous and cheap, called from inside a turn."""
        if isinstance(event, TextDelta):
            if self._items and isinstance(self._items[-1], list):
                self._items[-1].append(event.text)
            else:
                self._items.append([event.text])
        else:
            self._items.append(event)
        self._wake.set()

    @property
    def idle(self) -> bool:
        """Nothing waiting and nothing being drawn (tests wait for this)."""
        return not self._items and not self.drawing

    async def next(self) -> Drawn:
        """The next event; merged text comes out as TextDeltas of at most MAX_SLICE characters."""
        while not self._items:
            self._wake.clear()
            await self._wake.wait()
        head = self._items[0]
        if not isinstance(head, list):
            self._items.popleft()
            return head
        text = "".join(head)
        if len(text) > MAX_SLICE:
            head[:] = [text[MAX_SLICE:]]
            return TextDelta(text[:MAX_SLICE])
        self._items.popleft()
        return TextDelta(text)
