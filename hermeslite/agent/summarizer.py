"""The compressor's summary requests, sent through the agent's model and metered.

The engine asks for a summary in one of two shapes (see
`hermeslite.context.summary_request`): the serialized prompt, one bounded and
redacted user message that any model can answer; or an extension of the live
request, the exact messages and tool schemas the agent sent last with the
checkpoint instruction appended, which a provider with prompt caching reads
from its cache. Both are answered by the agent's current client, so `/model`
switches the summarizer too, and both record their usage as "summary".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hermeslite.context.compressor import Summarize
from hermeslite.context.summary_reply import SummaryReply
from hermeslite.context.summary_request import LiveRequest
from hermeslite.llm.types import Completion, LLMClient

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


def live_request(
    llm: LLMClient, messages: list[dict[str, Any]], tools: list[dict[str, Any]], tokens: int,
    usage: UsageMeter, timeout: float,
) -> LiveRequest:
    """The request the agent would send now (`messages` with `tools`), ready to be extended.

    The lists are copied: the summary must extend the request as it is at the
    start of the compaction, whatever happens to the transcript meanwhile.
    """
    frozen, schemas = list(messages), list(tools)

    async def send(instruction: str) -> SummaryReply:
        completion = await llm.complete(extension_request(frozen, instruction), schemas or None, timeout=timeout)
        usage.record("summary", llm.model, completion.usage)
        return summary_reply(completion)

    return LiveRequest(tokens=tokens, send=send)
