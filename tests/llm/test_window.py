"""Context-window lookup: config override, litellm's bundled map, else 8192 with a warning; never the network."""

from __future__ import annotations

import pytest

from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.llm.window import DEFAULT_CONTEXT_WINDOW, lookup_context_window


@pytest.fixture
def no_network(monkeypatch):
    """Fail the test if litellm's model-info code reaches for HTTP."""
    from hermeslite.llm.setup import load_litellm

    litellm = load_litellm()

    def refuse(*args, **kwargs):
        raise AssertionError("context-window lookup touched the network")

    for method in ("get", "post"):
        monkeypatch.setattr(litellm.module_level_client, method, refuse)


def test_config_override_wins():
    assert lookup_context_window(ModelConfig(name="openai/gpt-4o", context_window=50_000)) == (50_000, None)


def test_known_models_come_from_the_bundled_map(no_network):
    assert lookup_context_window(ModelConfig(name="gpt-4o")) == (128_000, None)
    assert lookup_context_window(ModelConfig(name="openai/gpt-4o", api_base="http://127.0.0.1:1/v1")) == (128_000, None)
    assert lookup_context_window(ModelConfig(name="anthropic/claude-sonnet-4-5")) == (200_000, None)


def test_unknown_model_assumes_8192_and_says_how_to_fix_it(no_network):
    tokens, warning = lookup_context_window(ModelConfig(name="openai/test-model", api_base="http://127.0.0.1:1/v1"))
    assert tokens == DEFAULT_CONTEXT_WINDOW == 8192
    assert warning == (
        "Context window of openai/test-model is unknown; assuming 8192 tokens. Set model.context_window in the config."
    )


def test_ollama_never_asks_the_server(no_network):
    assert lookup_context_window(ModelConfig(name="ollama/llama3.1")) == (8192, None)
    tokens, warning = lookup_context_window(ModelConfig(name="ollama_chat/some-private-model:7b"))
    assert tokens == 8192 and warning and "ollama_chat/some-private-model:7b" in warning


def test_client_caches_the_window_and_adopts_a_stated_limit():
    client = LiteLLMClient(ModelConfig(name="openai/test-model", context_window=32_000))
    assert client.context_window() == 32_000
    client.adopt_context_window(4096)
    assert client.context_window() == 4096
    client.adopt_context_window(0)  # a missing limit changes nothing
    assert client.context_window() == 4096


async def test_prepare_looks_up_the_window_off_the_loop(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # prepare() checks the key first
    client = LiteLLMClient(ModelConfig(name="openai/test-model"))
    assert await client.prepare() == 8192
    assert client.context_window_warning and "openai/test-model" in client.context_window_warning
    client.adopt_context_window(16_384)
    assert client.context_window_warning is None
