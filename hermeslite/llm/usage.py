"""Reading a response's usage into our `Usage`, whatever the provider.

litellm normalizes usage to the OpenAI shape: `prompt_tokens` counts every
input token, cached ones included (for Anthropic it adds
`cache_read_input_tokens` and `cache_creation_input_tokens` to
`input_tokens`), `prompt_tokens_details.cached_tokens` says how many were
read from the cache (OpenAI's automatic caching reports it there too), and
`cache_creation_input_tokens` how many were written to it.
"""

from __future__ import annotations

from typing import Any

from .types import Usage


def usage_from(usage: Any) -> Usage:
    """Our `Usage` from litellm's usage object (None gives an empty one)."""
    if usage is None:
        return Usage()
    details = response_field(usage, "prompt_tokens_details")
    read = _count(response_field(details, "cached_tokens")) or _count(response_field(usage, "cache_read_input_tokens"))
    written = _count(response_field(usage, "cache_creation_input_tokens")) or _count(
        response_field(details, "cache_creation_tokens")
    )
    return Usage(
        prompt_tokens=_count(response_field(usage, "prompt_tokens")) or None,
        completion_tokens=_count(response_field(usage, "completion_tokens")) or None,
        cache_read_tokens=read,
        cache_write_tokens=written,
    )


def response_field(obj: Any, name: str) -> Any:
    """A field of a part of litellm's response (its usage, a message, a tool call), or None.

    litellm's parts are pydantic models, but some providers hand back plain dicts.
    """
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0
