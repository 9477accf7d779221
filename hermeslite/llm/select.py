"""Which model to use when the user did not say: a key in the environment, else the embedded one.

hermeslite must answer on a fresh machine with no key and no network, so the
last resort is the SmolLM2 model shipped inside a wheel. A configured model
always wins; a provider key picks that provider's everyday model. A pick is
never silent: `pick_note` is the line every front end shows, because a user who
forgot to export a key must not mistake the small local model (which cannot
run tools and will happily invent a file listing) for the one they meant.

The order of the keys follows what peers do when several are set: a direct
provider key before a router's (aider differs only in trying OpenRouter first),
Anthropic before OpenAI, Gemini last.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

from hermeslite.llm.settings import ModelConfig

from .local import LOCAL_MODEL_NAME
from .model_names import same_model

# (environment variable, model used when only that key is present), in order of preference.
DEFAULT_MODELS = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-4o"),
    ("OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4.5"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
)
SETUP_HINT = "`hermeslite setup` connects a provider"


@dataclass(frozen=True)
class ModelPick:
    """The model config with its name filled in, and how the name was chosen."""

    config: ModelConfig
    named: bool  # the config or the command line named the model
    key: str | None = None  # the environment variable that chose it, when one did

    @property
    def local(self) -> bool:
        return self.config.name == LOCAL_MODEL_NAME

    @property
    def origin(self) -> str | None:
        """A few words for a header beside the model name; None when the user named the model."""
        if self.named:
            return None
        if self.key:
            return f"from {self.key}"
        return "no key: chat only, no tools"


def pick_model(cfg: ModelConfig, environ: Mapping[str, str] | None = None) -> ModelPick:
    """The model a config leads to, and whether it was named, picked by a key or the local fallback."""
    if cfg.name:
        return ModelPick(cfg, named=True)
    env = os.environ if environ is None else environ
    for variable, model in DEFAULT_MODELS:
        if env.get(variable):
            return ModelPick(replace(cfg, name=model), named=False, key=variable)
    return ModelPick(replace(cfg, name=LOCAL_MODEL_NAME), named=False)


def resolve_model(cfg: ModelConfig, environ: Mapping[str, str] | None = None) -> ModelConfig:
    """The model config with `name` filled in."""
    return pick_model(cfg, environ).config


def pick_note(pick: ModelPick) -> str | None:
    """What to tell the user about a model nobody named: which one, and why; None for a named model."""
    if pick.named:
        return None
    if pick.key:
        return f"no model configured: using {pick.config.name} because {pick.key} is set ({SETUP_HINT} or model.name picks another)"
    return (
        f"no model configured and no provider key set: this is the small embedded model ({LOCAL_MODEL_NAME}), "
        f"chat only: it cannot run commands or read files, and may make up what it cannot see. "
        f"{SETUP_HINT} (OpenAI, Anthropic, OpenRouter, Gemini, Ollama, a local server)."
    )


def for_model(current: ModelConfig, name: str, environ: Mapping[str, str] | None = None) -> ModelConfig:
    """`current` made to describe the model `name` (a `--model`, a `/model`): one rule for both.

    The context window belongs to the model the config leads to (`model.name`,
    or with no name the one a key picks): it is kept only for that same model,
    and another one gets its own (litellm's table, or what its provider
    states). The endpoint and the key carry over within a provider only: a
    local server's api_base means nothing to anthropic/.
    """
    leads_to = resolve_model(current, environ).name
    if same_model(name, leads_to):  # `claude-x` is `anthropic/claude-x`: the config's window is its own
        return replace(current, name=name)
    same = provider(name) == provider(leads_to)
    return replace(
        current,
        name=name,
        context_window=None,
        api_base=current.api_base if same else None,
        api_key_env=current.api_key_env if same else None,
        api_key=current.api_key if same else None,
    )


def provider(name: str | None) -> str:
    """ "anthropic" for "anthropic/claude-...", "" for a name without a provider."""
    return name.split("/", 1)[0] if name and "/" in name else ""


def is_local(cfg: ModelConfig) -> bool:
    return cfg.name == LOCAL_MODEL_NAME


def make_client(cfg: ModelConfig, *, max_retries: int = 3):
    """The LLMClient for a resolved model config; neither backend loads anything yet."""
    if is_local(cfg):
        from .local import LocalModelClient

        return LocalModelClient(n_ctx=cfg.context_window or 8192)
    from .litellm_client import LiteLLMClient

    return LiteLLMClient(cfg, max_retries=max_retries)
