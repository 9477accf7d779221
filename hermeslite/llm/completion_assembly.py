"""One `Completion` from what litellm returns, streamed or not.

Servers disagree on how a streamed reply arrives: tool calls come as
fragments keyed by index, or without an index, or with the whole name
repeated in every delta; usage comes in a final chunk without choices;
arguments may be empty or sent twice. `Assembler` accumulates chunks into one
assistant message, `completion_from` reads a non-streamed response into the
same shape, and both price the call through litellm's cost map. Kept apart
from the client so that the retry and endpoint logic in `litellm_client` stays
readable and the assembly can be tested with plain chunk objects.
"""

from __future__ import annotations

import json
import re
import uuid
from types import ModuleType
from typing import Any

from hermeslite.context.call_ids import unique_ids

from .errors import FatalError, IncompleteReply
from .types import Completion
from .usage import response_field, usage_from

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """`text` with every lone UTF-16 surrogate replaced by U+FFFD.

    A server's JSON may hold an escape such as `\\ud800` with no partner
    (a model that emits half an emoji, a proxy that splits a pair across two
    stream chunks); decoded, it is a character UTF-8 cannot encode, so the
    terminal, the session store and the next request to the provider would
    all fail on it. A pair split across chunks becomes two replacement
    characters: what was sent cannot be rejoined.
    """
    return LONE_SURROGATE.sub("\ufffd", text)


class Assembler:
    """Accumulates stream chunks into one assistant message.

    Tool calls are keyed by their delta `index`; a delta without an index
    continues the call with the same id, or the latest call. The id and name
    usually come once in a call's first delta and the arguments in fragments;
    servers that repeat the whole name in every delta are handled too.
    """

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage_object: Any = None

    def add(self, chunk: Any) -> str:
        usage = getattr(chunk, "usage", None)
        if usage is not None and (getattr(usage, "prompt_tokens", None) or getattr(usage, "completion_tokens", None)):
            self.usage_object = usage
        choices = getattr(chunk, "choices", None)
        if not choices:  # the usage-only final chunk has choices == []
            return ""
        choice = choices[0]
        if getattr(choice, "finish_reason", None):
            self.finish_reason = choice.finish_reason
        delta = getattr(choice, "delta", None)
        if delta is None:
            return ""
        for call in getattr(delta, "tool_calls", None) or []:
            self._add_call(call)
        text = getattr(delta, "content", None)
        if isinstance(text, str) and text:
            text = encodable(text)
            self.text.append(text)
            return text
        return ""

    def _add_call(self, call: Any) -> None:
        index = response_field(call, "index")
        call_id = response_field(call, "id")
        if index is None:
            index = next((i for i, c in self.calls.items() if call_id and c["id"] == call_id), None)
            if index is None:
                index = max(self.calls) if self.calls and not call_id else len(self.calls)
        slot = self.calls.setdefault(int(index), {"id": None, "name": "", "arguments": ""})
        if call_id:
            slot["id"] = call_id
        function = response_field(call, "function")
        name = response_field(function, "name")
        if name and name != slot["name"]:
            slot["name"] += name
        arguments = response_field(function, "arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        if arguments:
            slot["arguments"] += arguments

    def finish(self) -> Completion:
        text = "".join(self.text)
        tool_calls = [_tool_call(slot) for _, slot in sorted(self.calls.items())]
        finish = self.finish_reason or ("tool_calls" if tool_calls else "stop")
        return Completion(
            message=_assistant_message(text, tool_calls), usage=usage_from(self.usage_object), finish_reason=finish
        )


def refusal_of(message: Any) -> str | None:
    """OpenAI's `refusal` field of a message; litellm keeps it among the provider-specific fields."""
    refusal = response_field(message, "refusal") or (response_field(message, "provider_specific_fields") or {}).get(
        "refusal"
    )
    return refusal if isinstance(refusal, str) and refusal else None


def require_whole(completion: Completion, *, finished: bool, model: str) -> None:
    """Raise IncompleteReply for a streamed reply that cannot count as an answer.

    An empty reply (no text, no tool calls: an empty 200, or only a usage
    chunk) and a stream that closed before the provider sent a finish reason
    would otherwise be saved as a complete answer and end the turn as a success.
    """
    content = completion.message.get("content")
    if not completion.message.get("tool_calls") and not (isinstance(content, str) and content.strip()):
        raise IncompleteReply(
            f"The provider returned an empty reply ({model} sent no text and no tool calls).", brief="empty reply"
        )
    if not finished:
        raise IncompleteReply(
            f"The provider ended the reply without finishing it ({model} closed the stream without a finish reason)."
        )


def _tool_call(slot: dict[str, Any]) -> dict[str, Any]:
    """The finished call, streamed or not: the one place its name and arguments are made encodable."""
    return {
        "id": slot["id"] or f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {"name": encodable(slot["name"]), "arguments": _clean_arguments(encodable(slot["arguments"]))},
    }


def _clean_arguments(arguments: str) -> str:
    """Empty arguments become "{}"; a server that sent the whole JSON twice is forgiven."""
    if not arguments.strip():
        return "{}"
    try:
        json.loads(arguments)
        return arguments
    except ValueError:
        half = len(arguments) // 2
        if len(arguments) % 2 == 0 and arguments[:half] == arguments[half:]:
            try:
                json.loads(arguments[:half])
                return arguments[:half]
            except ValueError:
                pass
    return arguments  # left as sent: the agent reports invalid JSON back to the model


def _assistant_message(text: str, tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text if text or not tool_calls else None}
    if tool_calls:
        message["tool_calls"] = unique_ids(tool_calls)
    return message


def stream_cost(litellm: ModuleType, model: str, usage: Any) -> float | None:
    if usage is None:
        return None
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            usage_object=usage,
        )
        return float(prompt_cost + completion_cost)
    except Exception:  # model not in the price map
        return None


def completion_from(litellm: ModuleType, response: Any, model: str) -> Completion:
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise FatalError(f"{model} returned a reply with no message.")
    choice = choices[0]
    message = getattr(choice, "message", None)
    text = response_field(message, "content") or ""
    tool_calls = []
    for call in response_field(message, "tool_calls") or []:
        function = response_field(call, "function")
        arguments = response_field(function, "arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        tool_calls.append(
            _tool_call(
                {
                    "id": response_field(call, "id"),
                    "name": response_field(function, "name") or "",
                    "arguments": arguments or "",
                }
            )
        )
    usage_object = getattr(response, "usage", None)
    usage = usage_from(usage_object)
    usage.cost = _response_cost(litellm, response, model, usage_object)
    finish = getattr(choice, "finish_reason", None) or ("tool_calls" if tool_calls else "stop")
    return Completion(
        message=_assistant_message(encodable(str(text)), tool_calls),
        usage=usage,
        finish_reason=finish,
        refusal=refusal_of(message),
    )


def _response_cost(litellm: ModuleType, response: Any, model: str, usage: Any) -> float | None:
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if isinstance(cost, (int, float)):
        return float(cost)
    try:
        return float(litellm.completion_cost(completion_response=response, model=model))
    except Exception:
        return stream_cost(litellm, model, usage)
