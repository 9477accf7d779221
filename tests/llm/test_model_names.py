"""One rule for "are these the same model": a provider prefix does not make another model."""

from __future__ import annotations

from hermeslite.llm.model_names import same_model


def test_a_name_with_and_without_its_provider_prefix_is_one_model() -> None:
    assert same_model("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5")
    assert same_model("claude-sonnet-4-5", "anthropic/claude-sonnet-4-5")
    assert same_model("openai/gpt-4o", "openai/gpt-4o")


def test_different_providers_and_routers_are_different_models() -> None:
    assert not same_model("azure/gpt-4o", "openai/gpt-4o")
    assert not same_model("openrouter/anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5")
    assert not same_model("openrouter/anthropic/claude-sonnet-4-5", "claude-sonnet-4-5")
    assert not same_model("openai/gpt-4o", "openai/gpt-4o-mini")
    assert not same_model(None, "gpt-4o") and not same_model("", "")
