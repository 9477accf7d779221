"""Helpers for the litellm adapter tests."""

from __future__ import annotations

from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.types import Completed, StreamedText, StreamEvent

USER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "terminal",
            "description": "run a command",
            "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    },
]


async def collect(
    client: LiteLLMClient, messages: list[dict], tools: list[dict] | None = None, into: list[StreamEvent] | None = None
) -> list[StreamEvent]:
    """Every event of one stream; `into` keeps what arrived before an exception."""
    events = into if into is not None else []
    async for event in client.stream(messages, tools):
        events.append(event)
    return events


def texts(events: list[StreamEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, StreamedText)]


def completed(events: list[StreamEvent]) -> Completed:
    """The one Completed event, which must come last."""
    finals = [e for e in events if isinstance(e, Completed)]
    assert len(finals) == 1 and events[-1] is finals[0]
    return finals[0]
