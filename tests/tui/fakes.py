"""A model that streams slowly, for cancelling a reply halfway through."""

from __future__ import annotations

import asyncio

from hermeslite.llm.caching import CachePlan
from hermeslite.llm.types import Completed, Completion, LLMClient, StreamedText, Usage


class SlowStreamLLM(LLMClient):
    """Streams `words` one at a time with `delay` seconds between them."""

    model = "fake/slow-model"

    def __init__(self, words: list[str], delay: float = 0.05, window: int = 100_000) -> None:
        self.words, self.delay, self.window = words, delay, window
        self.started = asyncio.Event()
        self.cancelled = False

    def context_window(self) -> int:
        return self.window

    def adopt_context_window(self, tokens: int) -> None:
        self.window = self.learned_window = tokens

    def cache_plan(self) -> CachePlan:
        return CachePlan("none", detail="a fake model")

    async def stream(self, messages, tools=None):
        text = ""
        try:
            for word in self.words:
                self.started.set()
                await asyncio.sleep(self.delay)
                text += word
                yield StreamedText(word)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        yield Completed(Completion({"role": "assistant", "content": text}, Usage(prompt_tokens=100)))

    async def complete(self, messages, tools=None, *, model=None, timeout=None, cache=True) -> Completion:
        return Completion({"role": "assistant", "content": "ok"}, Usage(prompt_tokens=10))
