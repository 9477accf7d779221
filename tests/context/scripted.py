"""A ContextCompressor driven by a scripted summarizer: the LLM is the only fake."""

from __future__ import annotations

from hermeslite.context import CompressionConfig, ContextCompressor

from ..builders import agent_session
from ..summary_requests import checkpoint

GOOD_SUMMARY = checkpoint()


class Scripted:
    """A summarizer that replays replies (strings or exceptions) and records calls."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls: list[tuple[str, str | None]] = []

    async def __call__(self, prompt: str, model: str | None) -> str:
        self.calls.append((prompt, model))
        reply = self.replies.pop(0) if self.replies else GOOD_SUMMARY
        if isinstance(reply, BaseException):
            raise reply
        return reply


class FakeClock:
    """A clock that stands still until a test moves `now`."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(summarizer=None, ctx=20_000, clock=None, **cfg):
    """A compressor for a `ctx`-token window that compacts at half of it and prunes every old output."""
    config = CompressionConfig(**{"threshold": 0.5, "prune_minimum_tokens": 0, "prune_protect_tokens": 20_000, **cfg})
    return ContextCompressor(
        config,
        context_length=ctx,
        summarize=summarizer or Scripted(),
        clock=clock or FakeClock(),
        today=lambda: "2026-11-22",
    )


def long_session(turns=30, chars=3_000):
    """A session well past half of the default 20k window."""
    return agent_session(turns, output_chars=chars)


class AuthError(Exception):
    """What a provider SDK raises for a rejected key: compression must abort, not fall back."""

    status_code = 401


class RateLimited(Exception):
    """What a provider SDK raises when throttled: worth a retry."""

    status_code = 429
