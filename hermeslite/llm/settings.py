"""The `model:` section of the YAML config: which LLM to talk to, and how.

It lives with the model client that reads it (as `compression:` lives in
context/settings.py), so the llm layer needs nothing from the config loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermeslite.context.fieldspec import check_and_normalize, spec


@dataclass
class ModelConfig:
    """Which LLM to talk to. With no name and no provider key in the environment,
    the embedded SmolLM2 model runs locally so hermeslite works with no setup."""

    name: str | None = field(
        default=None,
        metadata=spec(
            "model",
            "litellm model string (openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3.1, ...); "
            "null picks one from the API keys in the environment, else the embedded local model",
        ),
    )
    api_base: str | None = field(
        default=None,
        metadata=spec(
            "url_or_null", "base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 for llama.cpp"
        ),
    )
    api_key_env: str | None = field(
        default=None,
        metadata=spec(
            "text_or_null", "environment variable that holds the API key; null uses the provider's usual one"
        ),
    )
    context_window: int | None = field(
        default=None,
        metadata=spec(
            "whole_or_null",
            "the model's context window in tokens; null looks it up (8192 if unknown)",
            lo=512,
            hi=100_000_000,
        ),
    )
    timeout: float = field(
        default=60,
        metadata=spec(
            "number",
            "seconds to wait for a connection, and for each next piece of a streamed reply, "
            "before the request counts as timed out",
            lo=1,
            hi=3600,
        ),
    )
    prompt_caching: str = field(
        default="auto",
        metadata=spec(
            "choice",
            "auto marks cache breakpoints for Claude models (system prompt + last 3 messages) and keeps "
            "the prefix stable for providers that cache by themselves; off sends no cache marks",
            choices=("auto", "off"),
        ),
    )
    cache_ttl: str = field(
        default="5m",
        metadata=spec(
            "choice",
            "how long Claude keeps a cached prefix: 5m, or 1h for sessions with long pauses "
            "(1h cache writes cost 2x input instead of 1.25x)",
            choices=("5m", "1h"),
        ),
    )
    api_key: str | None = field(
        default=None,
        metadata=spec(
            "text_or_null",
            "the API key itself, for a user who asked `hermeslite setup` to save it; prefer api_key_env "
            "(a key in a file is easier to leak); `hermeslite config` does not print it",
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)
