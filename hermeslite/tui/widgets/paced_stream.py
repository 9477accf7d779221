"""Streaming into a Markdown widget with back-pressure: it can say when it has drawn everything written.

Textual's `MarkdownStream` batches fragments but cannot say when it has caught
up, and the only way to teach it would be to override its private loop. This
is the same idea on `Markdown.append` (public): fragments that arrive while
an append is running are joined and appended in one go, and `caught_up`
resolves once nothing is pending. The drawing task waits for that before
handing over the next slice of a fast reply, so each append parses and mounts
a bounded amount of text.

Its own module because importing Markdown (markdown-it and friends) costs
about 35 ms, which the first frame should not pay: the app imports this the
first time a reply streams.
"""

from __future__ import annotations

import asyncio

from textual.widgets import Markdown


class PacedStream:
    """Appends what is written to `markdown` in the background, batching what piles up."""

    def __init__(self, markdown: Markdown) -> None:
        self.markdown = markdown
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._caught_up = asyncio.Event()
        self._caught_up.set()
        self._task: asyncio.Task[None] | None = asyncio.create_task(self._draw(), name="hermeslite-markdown")

    async def write(self, fragment: str) -> None:
        """Queue `fragment` and let the drawing task run; it is appended with whatever else is pending."""
        if self._task is None:
            raise RuntimeError("write after stop")
        if not fragment:
            return
        self._pending.append(fragment)
        self._caught_up.clear()
        self._wake.set()
        await asyncio.sleep(0)

    async def caught_up(self) -> None:
        """Wait until everything written so far is in the Markdown widget."""
        await self._caught_up.wait()

    async def stop(self) -> None:
        """Append what is still pending and end the drawing task."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await task

    async def _draw(self) -> None:
        """Append in a loop; on stop, let the append under way finish (it is shielded), then the rest."""
        appending: asyncio.Future[None] | None = None
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                appending = asyncio.ensure_future(self._append_pending())
                await asyncio.shield(appending)
        except asyncio.CancelledError:
            if appending is not None:
                await appending
        await self._append_pending()

    async def _append_pending(self) -> None:
        text = "".join(self._pending)
        self._pending.clear()
        if text:
            await self.markdown.append(text)
        if not self._pending:
            self._caught_up.set()
