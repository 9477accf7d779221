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
    details = _field(usage, "prompt_tokens_details")
    read = _count(_field(details, "cached_tokens")) or _count(_field(usage, "cache_read_input_tokens"))
    written = _count(_field(usage, "cache_creation_input_tokens")) or _count(_field(details, "cache_creation_tokens"))
    return Usage(
        prompt_tokens=_count(_field(usage, "prompt_tokens")) or None,
        completion_tokens=_count(_field(usage, "completion_tokens")) or None,
        cache_read_tokens=read,
        cache_write_tokens=written,
    )


def _field(obj: Any, name: str) -> Any:
    """litellm's usage objects are pydantic models, but some providers hand back plain dicts."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0
