"""Prompt caching: which models get cache breakpoints, and where they go.

Claude (on anthropic/, openrouter/anthropic/, bedrock/, vertex_ai/,
azure_ai/) caches only what a request marks with `cache_control`, at most
four marks. hermeslite marks the system prompt and the last three non-system
messages ("system_and_3"): the system prompt changes only at a compaction,
and the rolling three let each request read the previous one's prefix even
when a turn added many blocks. litellm does the marking: its
`cache_control_injection_points` (the Anthropic cache-control hook) puts the
marker on a message by role or by negative index and converts it for each
provider. It cannot mark an assistant message that only calls tools (there
is no text block to carry the marker); such a turn simply has one mark fewer.

Providers that cache repeated prefixes by themselves (OpenAI, DeepSeek,
Gemini and others, per litellm's model map) need no marks: the agent keeps
the prefix byte-stable and their usage reports the cached tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

# Providers that serve Claude with Anthropic-style explicit cache breakpoints.
BREAKPOINT_PROVIDERS = ("anthropic", "bedrock", "vertex_ai", "azure_ai", "openrouter")
MAX_MESSAGE_MARKS = 3


@dataclass(frozen=True)
class CachePlan:
    """How requests to one model use the provider's prompt cache."""

    mode: str  # breakpoints | automatic | none | off
    ttl: str = "5m"  # breakpoints only: 5m or 1h
    detail: str = ""  # who caches, for the start-up line

    @property
    def marks(self) -> bool:
        return self.mode == "breakpoints"

    @property
    def active(self) -> bool:
        """The provider caches this model's prompts (with our marks or by itself)."""
        return self.mode in ("breakpoints", "automatic")

    def describe(self) -> str:
        """The start-up line."""
        if self.mode == "breakpoints":
            return f"Prompt caching: on ({self.detail}; system prompt + last 3 messages marked, {self.ttl} TTL)"
        if self.mode == "automatic":
            return f"Prompt caching: automatic ({self.detail} caches repeated prefixes; the prefix is kept stable)"
        if self.mode == "off":
            return "Prompt caching: off (model.prompt_caching: off)"
        return f"Prompt caching: not available ({self.detail})"


def plan_for(name: str, *, setting: str, ttl: str, litellm: ModuleType) -> CachePlan:
    """The plan for model `name` under `model.prompt_caching` = `setting` (auto | off).

    litellm routes the name to its provider. Claude on a provider that takes
    cache breakpoints gets them whatever the map's `supports_prompt_caching`
    says: every current Claude model caches, and the map lags new releases
    (and lacks the flag for some, such as claude-3-5-haiku). Any other model
    is "automatic" when the map says it supports prompt caching.
    """
    if setting == "off":
        return CachePlan("off", ttl)
    provider = _provider(name, litellm)
    claude = "claude" in name.lower()
    if claude and provider in BREAKPOINT_PROVIDERS:
        return CachePlan("breakpoints", ttl, f"Claude via {provider}")
    if _map_says_caching(name, litellm):
        return CachePlan("automatic", ttl, provider or name)
    return CachePlan("none", ttl, f"{name} reports no prompt caching in litellm's model map")


def injection_points(plan: CachePlan, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """litellm `cache_control_injection_points` for system + the last 3 non-system messages.

    Indices are negative (counted from the end) and never reach past the first
    non-system message, so no point names a message that does not exist.
    """
    if not plan.marks:
        return []
    control: dict[str, str] = {"type": "ephemeral"}
    if plan.ttl != "5m":
        control["ttl"] = plan.ttl
    points: list[dict[str, Any]] = []
    if any(m.get("role") == "system" for m in messages):
        points.append({"location": "message", "role": "system", "control": control})
    others = sum(1 for m in messages if m.get("role") != "system")
    points += [
        {"location": "message", "index": -i, "control": control} for i in range(min(MAX_MESSAGE_MARKS, others), 0, -1)
    ]
    return points


def _provider(name: str, litellm: ModuleType) -> str:
    try:
        return str(litellm.get_llm_provider(model=name)[1])
    except Exception:  # an unroutable name: litellm will say so on the first request
        return name.split("/", 1)[0] if "/" in name else ""


def _map_says_caching(name: str, litellm: ModuleType) -> bool:
    """A plain read of the bundled map (no provider lookups, which may go to the network)."""
    entries = litellm.model_cost
    for key in (name, name.split("/", 1)[-1]):
        entry = entries.get(key)
        if isinstance(entry, dict) and entry.get("supports_prompt_caching"):
            return True
    return False
