"""Which model runs when nobody named one, and the line that says so; the one rule for --model and /model."""

from __future__ import annotations

from hermeslite.llm.local import LOCAL_MODEL_NAME
from hermeslite.llm.select import for_model, pick_model, pick_note
from hermeslite.llm.settings import ModelConfig

LOCAL_SERVER = "http://127.0.0.1:8080/v1"


def test_a_named_model_is_used_as_it_is_and_nothing_is_said() -> None:
    pick = pick_model(ModelConfig(name="ollama/llama3.1"), {"ANTHROPIC_API_KEY": "k"})
    assert (pick.config.name, pick.named, pick.origin, pick_note(pick)) == ("ollama/llama3.1", True, None, None)


def test_the_first_key_in_order_picks_the_provider_and_the_line_names_it() -> None:
    env = {"GEMINI_API_KEY": "g", "OPENROUTER_API_KEY": "r", "OPENAI_API_KEY": "o"}
    pick = pick_model(ModelConfig(), env)
    assert (pick.config.name, pick.key, pick.origin) == ("openai/gpt-4o", "OPENAI_API_KEY", "from OPENAI_API_KEY")
    assert pick_note(pick) == (
        "no model configured: using openai/gpt-4o because OPENAI_API_KEY is set "
        "(`hermeslite setup` connects a provider or model.name picks another)"
    )
    assert pick_model(ModelConfig(), {**env, "ANTHROPIC_API_KEY": "a"}).config.name == "anthropic/claude-sonnet-4-5"
    assert pick_model(ModelConfig(), {"GEMINI_API_KEY": "g", "OPENROUTER_API_KEY": "r"}).key == "OPENROUTER_API_KEY"


def test_an_empty_key_does_not_count() -> None:
    assert pick_model(ModelConfig(), {"OPENAI_API_KEY": ""}).config.name == LOCAL_MODEL_NAME


def test_with_no_key_the_line_says_plainly_what_the_local_model_cannot_do() -> None:
    pick = pick_model(ModelConfig(), {})
    assert (pick.config.name, pick.local, pick.origin) == (LOCAL_MODEL_NAME, True, "no key: chat only, no tools")
    note = pick_note(pick)
    assert note is not None
    assert "small embedded model (local/smollm2), chat only" in note
    assert "cannot run commands or read files" in note
    assert "`hermeslite setup`" in note


def test_another_model_gets_its_own_window_and_keeps_the_endpoint_only_within_a_provider() -> None:
    config = ModelConfig(name="openai/qwen", api_base=LOCAL_SERVER, api_key_env="LOCAL_KEY", context_window=8192)
    same_server = for_model(config, "openai/llama")
    assert (same_server.api_base, same_server.api_key_env, same_server.context_window) == (
        LOCAL_SERVER,
        "LOCAL_KEY",
        None,
    )
    hosted = for_model(config, "anthropic/claude-sonnet-4-5")
    assert (hosted.api_base, hosted.api_key_env, hosted.context_window) == (None, None, None)
    assert for_model(config, "openai/qwen") == config  # the config's own model keeps everything


def test_with_no_name_the_window_belongs_to_the_model_a_key_picks() -> None:
    config = ModelConfig(context_window=8192)
    env = {"ANTHROPIC_API_KEY": "k"}
    assert for_model(config, "anthropic/claude-sonnet-4-5", env).context_window == 8192
    assert for_model(config, "openai/gpt-4o", env).context_window is None


def test_the_configs_window_is_its_models_with_or_without_the_provider_prefix() -> None:
    config = ModelConfig(name="claude-sonnet-4-5", context_window=8192)
    assert for_model(config, "anthropic/claude-sonnet-4-5").context_window == 8192
    prefixed = ModelConfig(name="anthropic/claude-sonnet-4-5", context_window=8192)
    assert for_model(prefixed, "claude-sonnet-4-5").context_window == 8192
    assert for_model(prefixed, "openrouter/anthropic/claude-sonnet-4-5").context_window is None
