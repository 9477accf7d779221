"""How many input tokens a model accepts, without touching the network.

Order: the config's `model.context_window`; then litellm's model map
(`get_model_info(name)["max_input_tokens"]`, read from the map bundled in the
wheel because `LITELLM_LOCAL_MODEL_COST_MAP=True`); then 8192 with a warning
that tells the user how to set it.

Why some names skip `get_model_info` and read the bundled map directly:

- `ollama/`, `ollama_chat/`: for a model not in the map litellm POSTs
  `/api/show` to the Ollama server (default localhost:11434) to read the
  model's *trained* context length. That is a network call with no short
  timeout, and it overstates the window anyway: Ollama silently truncates the
  prompt to its `num_ctx` setting (2048-8192 by default), not to the trained
  length. The map's conservative entry (8192 for ollama/llama3.1) or the 8192
  default is the safer number; set model.context_window to match `num_ctx`.
- `lemonade/` asks its server's /models endpoint; `huggingface/` downloads
  config.json from huggingface.co. Both are network calls.

`openai/<name>` with an `api_base` (llama.cpp, vLLM, LM Studio...) goes
through `get_model_info` as usual: for the openai provider it is a dict
lookup. A well-known name (openai/gpt-4o behind a proxy) gets its real window;
a local model name is not mapped, so it gets 8192 and the warning, and the
first overflow error from the server (llama.cpp says "available context size
(4096 tokens)") corrects it through `LiteLLMClient.adopt_context_window`.
"""

from __future__ import annotations

from typing import Any

from hermeslite.llm.settings import ModelConfig

DEFAULT_CONTEXT_WINDOW = 8192

# Providers whose litellm get_model_info makes an HTTP request.
_NETWORK_LOOKUP_PROVIDERS = ("ollama", "ollama_chat", "lemonade", "huggingface")


def unknown_window_warning(name: str | None) -> str:
    label = name or "this model"
    return (
        f"Context window of {label} is unknown; assuming {DEFAULT_CONTEXT_WINDOW} tokens. "
        "Set model.context_window in the config."
    )


def lookup_context_window(model_cfg: ModelConfig) -> tuple[int, str | None]:
    """(input tokens, warning or None). Imports litellm (about 3 s the first time) unless the config says the size."""
    if model_cfg.context_window:
        return int(model_cfg.context_window), None
    name = model_cfg.name
    if not name:
        return DEFAULT_CONTEXT_WINDOW, unknown_window_warning(name)
    tokens = _from_litellm(name)
    if tokens:
        return tokens, None
    return DEFAULT_CONTEXT_WINDOW, unknown_window_warning(name)


def _from_litellm(name: str) -> int | None:
    try:
        from .setup import load_litellm

        litellm = load_litellm()
    except Exception:  # litellm missing or broken: the default still works
        return None
    provider = name.split("/", 1)[0] if "/" in name else None
    try:
        if provider in _NETWORK_LOOKUP_PROVIDERS:
            return _from_bundled_map(litellm, name, provider)
        info = litellm.get_model_info(name)
    except Exception:  # ModelNotMappedError and friends: the model is simply unknown
        return None
    return _positive(info.get("max_input_tokens"))


def _from_bundled_map(litellm: Any, name: str, provider: str) -> int | None:
    """The map entry for `name` under any of its spellings, without provider-specific lookups."""
    bare = name.split("/", 1)[1]
    cost = getattr(litellm, "model_cost", {}) or {}
    lowered = {key.lower(): value for key, value in cost.items()}
    keys = [name, bare]
    if provider.startswith("ollama"):
        keys[1:1] = [f"ollama/{bare}", f"ollama_chat/{bare}"]
    for key in keys:
        entry = lowered.get(key.lower())
        if isinstance(entry, dict):
            tokens = _positive(entry.get("max_input_tokens"))
            if tokens:
                return tokens
    return None


def _positive(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None
