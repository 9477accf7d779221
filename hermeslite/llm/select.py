"""Which model to use when the user did not say: a key in the environment, else the embedded one.

hermeslite must answer on a fresh machine with no key and no network, so the
last resort is the SmolLM2 model shipped inside a wheel. A configured model
always wins; a provider key picks that provider's everyday model.
"""

from __future__ import annotations

import os
from dataclasses import replace

from hermeslite.config import ModelConfig

from .local import LOCAL_MODEL_NAME

# (environment variable, model used when only that key is present), in order of preference.
DEFAULT_MODELS = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-4o"),
    ("OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4.5"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
)


def resolve_model(cfg: ModelConfig, environ: dict[str, str] | None = None) -> ModelConfig:
    """The model config with `name` filled in."""
    if cfg.name:
        return cfg
    env = os.environ if environ is None else environ
    for variable, model in DEFAULT_MODELS:
        if env.get(variable):
            return replace(cfg, name=model)
    return replace(cfg, name=LOCAL_MODEL_NAME)


def is_local(cfg: ModelConfig) -> bool:
    return cfg.name == LOCAL_MODEL_NAME


def make_client(cfg: ModelConfig, *, max_retries: int = 3):
    """The LLMClient for a resolved model config; neither backend loads anything yet."""
    if is_local(cfg):
        from .local import LocalModelClient

        return LocalModelClient(n_ctx=cfg.context_window or 8192)
    from .litellm_client import LiteLLMClient

    return LiteLLMClient(cfg, max_retries=max_retries)
