"""What /model offers with no name: configured first, then the model in use, recent sessions' models,
and the chat models litellm knows for each provider whose key is set, with window and price."""

from __future__ import annotations

import time

from hermeslite.agent.model_list import ModelChoice, build_choices, model_choices, short_list
from hermeslite.commands.model_table import numbered_list, price_cell, window_cell
from hermeslite.llm.settings import ModelConfig
from tests.server import MODEL


def litellm_entry(name: str) -> dict:
    import litellm

    _, _, bare = name.partition("/")
    return litellm.model_cost.get(bare) or litellm.model_cost[name]


def test_a_keyed_provider_s_chat_models_are_listed_with_window_and_price():
    choices = build_choices(ModelConfig(name=MODEL), MODEL, [], environ={"ANTHROPIC_API_KEY": "sk-test"})
    known = [c for c in choices if c.source == "known"]
    assert known and all(c.name.startswith("anthropic/") for c in known)
    assert known[0].name == "anthropic/claude-sonnet-4-5"  # the provider's usual model leads
    entry = litellm_entry("anthropic/claude-sonnet-4-5")
    assert known[0].context_window == entry["max_input_tokens"]
    assert known[0].input_per_million == round(entry["input_cost_per_token"] * 1_000_000, 6)
    assert known[0].output_per_million == round(entry["output_cost_per_token"] * 1_000_000, 6)
    assert window_cell(known[0]) == "200k window" and price_cell(known[0]) == "$3.00 in / $15.00 out per Mtok"
    assert all(litellm_entry(c.name)["mode"] == "chat" for c in known)  # no image or embedding models


def test_without_keys_only_the_named_models_are_offered():
    choices = build_choices(ModelConfig(name=MODEL), MODEL, ["gemini/gemini-2.5-flash"], environ={})
    assert [(c.name, c.source) for c in choices] == [(MODEL, "configured"), ("gemini/gemini-2.5-flash", "recent")]
    assert choices[0].context_window is None and price_cell(choices[0]) == "price unknown"  # not in the table


def test_the_configured_model_shows_the_window_its_config_gives_it():
    """The session runs on the config's window (llm/select.for_model); the list says the same, for the
    model the config names only."""
    configured = ModelConfig(name=MODEL, context_window=32_000)
    choices = build_choices(configured, "openai/gpt-4o", [], environ={})
    assert [(c.name, c.context_window) for c in choices] == [(MODEL, 32_000), ("openai/gpt-4o", 128_000)]
    assert window_cell(choices[0]) == "32k window"
    picked = build_choices(ModelConfig(context_window=50_000), MODEL, [], environ={"OPENAI_API_KEY": "k"})
    assert picked[0].source == "configured" and picked[0].context_window == 50_000  # the model a key picks


def test_configured_comes_first_then_in_use_then_recent_each_once():
    choices = build_choices(
        ModelConfig(name="openai/gpt-4o"),
        "anthropic/claude-haiku-4-5",
        ["openai/gpt-4o", "gemini/gemini-2.5-flash", "anthropic/claude-haiku-4-5", "gemini/gemini-2.5-flash"],
        environ={"OPENAI_API_KEY": "sk-test"},
    )
    named = [(c.name, c.source) for c in choices if c.source != "known"]
    assert named == [
        ("openai/gpt-4o", "configured"),
        ("anthropic/claude-haiku-4-5", "current"),
        ("gemini/gemini-2.5-flash", "recent"),
    ]
    names = [c.name for c in choices]
    assert len(names) == len(set(names)) and "openai/gpt-4o-mini" in names


def test_no_configured_name_means_the_one_a_key_picks():
    choices = build_choices(ModelConfig(), "anthropic/claude-sonnet-4-5", [], environ={"ANTHROPIC_API_KEY": "k"})
    assert (choices[0].name, choices[0].source) == ("anthropic/claude-sonnet-4-5", "configured")


async def test_recent_models_come_from_the_session_store(make_agent, tmp_path):
    agent, _ = make_agent()
    for model in ("openai/older-model", "openai/newer-model"):
        agent.deps.store.create_session(model, str(tmp_path))
        time.sleep(0.01)  # distinct last-active times
    choices = await model_choices(agent, agent_config(agent))
    assert [(c.name, c.source) for c in choices] == [
        (MODEL, "configured"),
        ("openai/newer-model", "recent"),
        ("openai/older-model", "recent"),
    ]


def agent_config(agent) -> ModelConfig:
    return ModelConfig(name=agent.model_name)


def test_the_line_chat_list_keeps_every_named_model_and_a_few_known():
    choices = build_choices(ModelConfig(name=MODEL), MODEL, ["openai/other"], environ={"OPENAI_API_KEY": "k"})
    short = short_list(choices, known=3)
    assert [c.source for c in short] == ["configured", "recent", "known", "known", "known"]
    lines = numbered_list(short).splitlines()
    assert lines[0].startswith(" 1. openai/test-model") and "configured" in lines[0]
    assert lines[2].startswith(" 3. openai/gpt-4o ") and "128k window" in lines[2] and "per Mtok" in lines[2]
    assert lines[-1] == "/model N or /model NAME switches."


def test_the_short_list_takes_each_keyed_provider_in_turn_and_leaves_out_dated_snapshots():
    keys = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}
    short = short_list(build_choices(ModelConfig(name=MODEL), MODEL, [], environ=keys), known=4)
    known = [c.name for c in short if c.source == "known"]
    assert known[:2] == ["anthropic/claude-sonnet-4-5", "openai/gpt-4o"]  # each provider's usual model first
    assert [name.split("/")[0] for name in known[2:]] == ["anthropic", "openai"]
    assert all(c.context_window and c.input_per_million is not None for c in short[1:])


def test_the_short_list_leaves_dated_snapshots_and_unpriced_models_to_the_app():
    def known(name: str, price: float | None = 1.0) -> ModelChoice:
        return ModelChoice(name, "known", 128_000, price, price)

    offered = [
        known("openai/gpt-4o-2024-08-06"),
        known("openai/gpt-4-0613"),
        known("anthropic/claude-haiku-4-5-20251001"),
        known("openai/container", None),
        known("anthropic/claude-haiku-4-5"),
        known("openai/gpt-4.1"),
    ]
    assert [c.name for c in short_list(offered)] == ["anthropic/claude-haiku-4-5", "openai/gpt-4.1"]


async def test_an_unreadable_store_leaves_out_only_the_recent_models(make_agent):
    import sqlite3

    agent, _ = make_agent()
    with sqlite3.connect(agent.deps.store.path) as db:
        db.execute("ALTER TABLE sessions RENAME TO gone")
    choices = await model_choices(agent, agent_config(agent))
    assert [(c.name, c.source) for c in choices] == [(MODEL, "configured")]
