"""MarkdownStream with back-pressure: it can say when it has drawn everything written to it.

Its own module because importing Markdown (markdown-it and friends) costs
about 35 ms, which the first frame should not pay: the app imports this the
first time a reply streams.
"""

from __future__ import annotations

import asyncio

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class PacedStream(MarkdownStream):
    """A MarkdownStream that can say when it has drawn everything written to it.

    The drawing task waits for that before handing over the next slice of a
    fast reply, so each append parses and mounts a bounded amount of text.
    """

    def __init__(self, markdown: Markdown) -> None:
        super().__init__(markdown)
        self._caught_up = asyncio.Event()
        self._caught_up.set()
        self.start()

    async def write(self, markdown_fragment: str) -> None:
        if markdown_fragment:
            self._caught_up.clear()
        await super().write(markdown_fragment)

    async def _run(self) -> None:
        try:
            while await self._new_markup.wait():
                new_markdown = "".join(self._pending)
                self._pending.clear()
                self._new_markup.clear()
                await asyncio.shield(self.markdown_widget.append(new_markdown))
                if not self._pending:
                    self._caught_up.set()
        except asyncio.CancelledError:
            pass
        new_markdown = "".join(self._pending)
        self._pending.clear()
        if new_markdown:
            await self.markdown_widget.append(new_markdown)
        self._caught_up.set()

    async def caught_up(self) -> None:
        await self._caught_up.wait()
