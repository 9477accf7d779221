"""Prompt caching in the llm layer: which models get breakpoints, where they land on the wire, what usage says.

Placement is checked on the request the provider receives: the client hands
litellm injection points, litellm's Anthropic hook and request transformation
place the markers, and the fake Anthropic server sees the result.
"""

from __future__ import annotations

import pytest

from hermeslite.llm.caching import CachePlan, injection_points, plan_for
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.llm.setup import load_litellm
from hermeslite.llm.types import Usage
from tests.fake_anthropic import FakeAnthropic, Reply
from tests.fake_anthropic.blocks import content_blocks
from tests.llm.helpers import TOOLS, collect, completed

CLAUDE = "anthropic/claude-sonnet-4-5"
KEY_ENV = "HERMESLITE_TEST_ANTHROPIC_KEY"
BIG_SYSTEM = "You are a careful agent. " * 300  # ~1,900 tokens: over the 1,024-token cache minimum


def follow_up(messages: list[dict]) -> list[dict]:
    """`messages` plus one more exchange: the next request of the same conversation."""
    return [*messages, {"role": "assistant", "content": "an answer"}, {"role": "user", "content": "and then?"}]


def conversation(turns: int) -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": BIG_SYSTEM}]
    for n in range(turns):
        messages += [{"role": "user", "content": f"question {n}"}, {"role": "assistant", "content": f"answer {n}"}]
    return [*messages, {"role": "user", "content": "last question"}]


@pytest.fixture
def claude(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, "test-key")

    def make(**config) -> LiteLLMClient:
        cfg = ModelConfig(name=CLAUDE, api_base=fake_anthropic.base_url, api_key_env=KEY_ENV, **config)
        return LiteLLMClient(cfg, max_retries=0)

    return make


def markers(body: dict) -> list[tuple[str, dict]]:
    """(where, cache_control) for every marked block of an Anthropic request body."""
    found = [(f"tools[{i}]", t["cache_control"]) for i, t in enumerate(body.get("tools") or []) if "cache_control" in t]
    system = body.get("system")
    found += [
        (f"system[{i}]", b["cache_control"])
        for i, b in enumerate(content_blocks(system) if system else [])
        if "cache_control" in b
    ]
    for m, message in enumerate(body["messages"]):
        found += [
            (f"messages[{m}]", b["cache_control"]) for b in content_blocks(message["content"]) if "cache_control" in b
        ]
    return found


# -- which models ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        CLAUDE,
        "openrouter/anthropic/claude-sonnet-4.5",
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "vertex_ai/claude-sonnet-4-5",
        "anthropic/claude-3-5-haiku-20241022",
    ],
)
def test_claude_on_a_claude_provider_gets_breakpoints(name: str) -> None:
    plan = plan_for(name, setting="auto", ttl="1h", litellm=load_litellm())
    assert plan.marks and plan.ttl == "1h"
    assert "Prompt caching: on" in plan.describe() and "1h TTL" in plan.describe()


@pytest.mark.parametrize("name", ["openai/gpt-4o", "deepseek/deepseek-chat"])
def test_providers_that_cache_by_themselves_get_no_breakpoints(name: str) -> None:
    plan = plan_for(name, setting="auto", ttl="5m", litellm=load_litellm())
    assert plan.mode == "automatic" and not plan.marks
    assert injection_points(plan, conversation(3)) == []


@pytest.mark.parametrize("name", ["openai/test-model", "ollama/llama3.1", "openai/claude-behind-a-proxy"])
def test_models_without_caching_get_nothing(name: str) -> None:
    plan = plan_for(name, setting="auto", ttl="5m", litellm=load_litellm())
    assert plan.mode == "none" and injection_points(plan, conversation(3)) == []


def test_off_by_config_wins_over_a_claude_model() -> None:
    plan = plan_for(CLAUDE, setting="off", ttl="5m", litellm=load_litellm())
    assert plan.mode == "off" and injection_points(plan, conversation(3)) == []
    assert plan.describe() == "Prompt caching: off (model.prompt_caching: off)"


def test_points_never_name_a_message_that_does_not_exist() -> None:
    plan = CachePlan("breakpoints")
    assert injection_points(plan, [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]) == [
        {"location": "message", "role": "system", "control": {"type": "ephemeral"}},
        {"location": "message", "index": -1, "control": {"type": "ephemeral"}},
    ]
    assert [p.get("index") for p in injection_points(plan, conversation(5))] == [None, -3, -2, -1]


# -- on the wire ----------------------------------------------------------------------


async def test_system_and_the_last_three_messages_are_marked(claude, fake_anthropic: FakeAnthropic) -> None:
    await collect(claude(), conversation(4), TOOLS)
    body = fake_anthropic.exchanges[0].body
    last = len(body["messages"]) - 1
    assert [where for where, _ in markers(body)] == [
        "system[0]",
        f"messages[{last - 2}]",
        f"messages[{last - 1}]",
        f"messages[{last}]",
    ]
    assert all(marker == {"type": "ephemeral"} for _, marker in markers(body))
    assert not fake_anthropic.rejections


async def test_the_configured_ttl_reaches_every_marker(claude, fake_anthropic: FakeAnthropic) -> None:
    await claude(cache_ttl="1h").complete(conversation(2))
    found = markers(fake_anthropic.exchanges[0].body)
    assert len(found) == 4 and all(marker == {"type": "ephemeral", "ttl": "1h"} for _, marker in found)


async def test_a_short_conversation_gets_fewer_marks(claude, fake_anthropic: FakeAnthropic) -> None:
    await claude().complete([{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}])
    assert [where for where, _ in markers(fake_anthropic.exchanges[0].body)] == ["system[0]", "messages[0]"]


async def test_tool_results_are_marked_and_never_more_than_four(claude, fake_anthropic: FakeAnthropic) -> None:
    calls = [
        {"id": f"toolu_{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}} for i in range(3)
    ]
    messages = [*conversation(1), {"role": "assistant", "content": "Reading.", "tool_calls": calls}]
    messages += [{"role": "tool", "tool_call_id": c["id"], "content": f"file {i}"} for i, c in enumerate(calls)]
    await claude().complete(messages, TOOLS)
    body = fake_anthropic.exchanges[0].body
    assert len(markers(body)) == 4 and not fake_anthropic.rejections
    results = body["messages"][-1]["content"]
    assert [("cache_control" in block) for block in results] == [True, True, True]


async def test_off_sends_no_marker(claude, fake_anthropic: FakeAnthropic) -> None:
    await claude(prompt_caching="off").complete(conversation(3), TOOLS)
    assert markers(fake_anthropic.exchanges[0].body) == []


async def test_an_openai_compatible_model_gets_no_marker(scripted_server, make_client) -> None:
    await make_client().complete(conversation(3), TOOLS)
    assert "cache_control" not in str(scripted_server.requests[0])


# -- usage ----------------------------------------------------------------------------


async def test_the_second_request_reads_the_first_ones_prefix(claude, fake_anthropic: FakeAnthropic) -> None:
    client = claude()
    first = completed(await collect(client, conversation(2), TOOLS)).completion.usage
    assert first.cache_read_tokens == 0 and first.cache_write_tokens > 1_024
    second = (await client.complete(follow_up(conversation(2)), TOOLS)).usage
    server = fake_anthropic.exchanges[1].usage
    assert second.cache_read_tokens == server.cache_read_input_tokens >= first.cache_write_tokens
    assert second.cache_write_tokens == server.cache_creation_input_tokens
    assert second.prompt_tokens == server.prompt_tokens
    assert first.cost is not None and second.cost is not None
    # Sonnet bills cache reads at a tenth of the input price: the longer second prompt costs less.
    assert second.cost < first.cost


async def test_streamed_usage_carries_cache_reads_and_a_price(claude, fake_anthropic: FakeAnthropic) -> None:
    client = claude()
    await client.complete(conversation(2), TOOLS)
    fake_anthropic.enqueue(Reply.say("streamed"))
    usage = completed(await collect(client, follow_up(conversation(2)), TOOLS)).completion.usage
    assert usage.cache_read_tokens == fake_anthropic.exchanges[1].usage.cache_read_input_tokens > 0
    assert usage.cost is not None and usage.cost > 0


def test_usage_reads_cached_tokens_the_way_litellm_normalizes_them() -> None:
    from litellm.types.utils import Usage as LiteLLMUsage

    from hermeslite.llm.usage import usage_from

    openai_style = LiteLLMUsage(
        prompt_tokens=5_000, completion_tokens=40, prompt_tokens_details={"cached_tokens": 4_608}
    )
    assert usage_from(openai_style) == Usage(prompt_tokens=5_000, completion_tokens=40, cache_read_tokens=4_608)
    anthropic_style = LiteLLMUsage(
        prompt_tokens=5_010, completion_tokens=5, cache_creation_input_tokens=2_000, cache_read_input_tokens=3_000
    )
    assert usage_from(anthropic_style) == Usage(
        prompt_tokens=5_010, completion_tokens=5, cache_read_tokens=3_000, cache_write_tokens=2_000
    )
    assert usage_from(None) == Usage()
