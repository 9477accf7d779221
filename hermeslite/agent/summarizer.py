"""The compressor's summary requests, sent through the agent's model and metered.

The engine asks for a summary in one of two shapes (see
`hermeslite.context.summary_request`): the serialized prompt, one bounded and
redacted user message that any model can answer; or an extension of a live
request, its exact messages and tool schemas with the checkpoint instruction
appended, which a provider with prompt caching reads from its cache. The live
request is the last one the agent sent when that still holds every message
the checkpoint replaces, else the one it would send now. Both shapes are
answered by the agent's current client, so `/model` switches the summarizer
too, and both record their usage as "summary".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hermeslite.context.compressor import Summarize
from hermeslite.context.summary_reply import SummaryReply
from hermeslite.context.summary_request import LiveRequest, LiveRequests
from hermeslite.llm.types import Completion, LLMClient

from .memory_notes import MemoryNotes
from .usage import UsageMeter


def extension_request(messages: list[dict[str, Any]], instruction: str) -> list[dict[str, Any]]:
    """The live messages, untouched, plus the instruction as the final user turn."""
    return [*messages, {"role": "user", "content": instruction}]


def summary_reply(completion: Completion) -> SummaryReply:
    """The reply's text with how the model ended it: the engine rejects a cut-off or refused summary."""
    return SummaryReply(completion.message.get("content") or "", completion.finish_reason, completion.refusal)


def serialized_summarizer(current_llm: Callable[[], LLMClient], usage: UsageMeter, timeout: float) -> Summarize:
    """The compressor's `summarize(prompt, model)`: the prompt as one user message, the reply out."""

    async def summarize(prompt: str, model: str | None) -> SummaryReply:
        llm = current_llm()
        completion = await llm.complete([{"role": "user", "content": prompt}], model=model, timeout=timeout)
        usage.record("summary", model or llm.model, completion.usage)
        return summary_reply(completion)

    return summarize


@dataclass(frozen=True)
class BuiltRequest:
    """A request as the agent builds it for its model: messages, tool schemas and what they carry.

    The sequences are copies taken when it is built, so the request stays what
    was (or would be) sent whatever happens to the transcript afterwards.
    """

    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]
    tokens: int


def live_requests(
    llm: LLMClient,
    now: BuiltRequest,
    sent: BuiltRequest | None,
    usage: UsageMeter,
    timeout: float,
    notes: MemoryNotes | None = None,
    *,
    cache: bool = True,
) -> LiveRequests:
    """The requests a summary may extend: `now`, the one the agent would send now, and `sent`, the last
    one it sent to this model, if any (the engine picks; see `summary_request.to_extend`). With `notes`,
    an extension also asks for memory notes and hands them to `notes` (see memory_notes). `cache` False:
    the extension goes without cache marks (the cache has gone cold and the compaction replaces the
    prefix, so writing it to the cache would pay a premium for nothing: see agent/idle.py)."""
    return LiveRequests(
        now=_live(llm, now, usage, timeout, notes, cache),
        sent=_live(llm, sent, usage, timeout, notes, cache) if sent is not None else None,
    )


def _live(
    llm: LLMClient,
    request: BuiltRequest,
    usage: UsageMeter,
    timeout: float,
    notes: MemoryNotes | None,
    cache: bool,
) -> LiveRequest:
    async def send(instruction: str) -> SummaryReply:
        messages = extension_request(list(request.messages), instruction)
        completion = await llm.complete(messages, list(request.tools) or None, timeout=timeout, cache=cache)
        usage.record("summary", llm.model, completion.usage)
        return summary_reply(completion)

    return LiveRequest(
        messages=request.messages, tokens=request.tokens, send=notes.asking(send) if notes is not None else send
    )
