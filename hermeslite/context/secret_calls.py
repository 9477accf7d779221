"""Tool-call arguments masked before the transcript keeps them.

A model writes credentials into its calls (`curl -H "Authorization: token ghp_..."`,
`export GITHUB_TOKEN=...`). The tool runs on the call as the model made it; the
copy that the transcript, the session store, the archive and the recall index keep
has every string in the arguments redacted, as tool results are. Replayed on a
later request or after resume, the masked call reads like a masked result does.
The arguments are masked value by value, so they stay valid JSON for the provider.
"""

from __future__ import annotations

import json
from typing import Any

from .messages import Message
from .redact import redact_secrets

__all__ = ["masked_arguments", "masked_strings", "with_masked_calls"]


def masked_strings(value: Any) -> Any:
    """`value` (any JSON value: a call's arguments, a whole message) with every string in it redacted."""
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, list):
        return [masked_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: masked_strings(v) for k, v in value.items()}
    return value


def masked_arguments(arguments: Any) -> Any:
    """`arguments` (a JSON string or an already parsed value) with every credential masked."""
    if not isinstance(arguments, str):
        return masked_strings(arguments)
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return redact_secrets(arguments)
    masked = masked_strings(parsed)
    return arguments if masked == parsed else json.dumps(masked, ensure_ascii=False)


def _masked_call(call: Any) -> Any:
    if not isinstance(call, dict):
        return call
    fn = call.get("function")
    if isinstance(fn, dict) and "arguments" in fn:
        return {**call, "function": {**fn, "arguments": masked_arguments(fn["arguments"])}}
    if "arguments" in call:
        return {**call, "arguments": masked_arguments(call["arguments"])}
    return call


def with_masked_calls(message: Message) -> Message:
    """`message` with its tool calls' arguments masked; the message itself when it makes no calls."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        return message
    return {**message, "tool_calls": [_masked_call(c) for c in calls]}
