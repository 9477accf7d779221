"""The fake Anthropic server is only worth its tests if it rejects and caches like the real API."""

from __future__ import annotations

import httpx
import pytest

from tests.fake_anthropic import FakeAnthropic
from tests.fake_anthropic.blocks import flatten
from tests.fake_anthropic.cache import PromptCache
from tests.fake_anthropic.validate import problem

LONG = "x" * 4_400  # 1,100 tokens at 4 chars a token, over the 1,024 minimum


def request(messages: list[dict], system: object = "be brief", **extra: object) -> dict:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": system, "messages": messages, **extra}


def text(value: str, marked: bool = False, ttl: str | None = None) -> dict:
    block: dict = {"type": "text", "text": value}
    if marked:
        block["cache_control"] = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return block


def use(i: str) -> dict:
    return {"type": "tool_use", "id": i, "name": "read_file", "input": {}}


def result(i: str) -> dict:
    return {"type": "tool_result", "tool_use_id": i, "content": "ok"}


# -- validation -----------------------------------------------------------------------


def test_a_valid_tool_round_trip_passes() -> None:
    body = request(
        [
            {"role": "user", "content": "read it"},
            {"role": "assistant", "content": [text("Reading."), use("t1"), use("t2")]},
            {"role": "user", "content": [result("t1"), result("t2"), text("thanks")]},
        ]
    )
    assert problem(body) is None


@pytest.mark.parametrize(
    ("messages", "wording"),
    [
        ([{"role": "assistant", "content": "hi"}], "first message"),
        ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "alternate"),
        ([{"role": "user", "content": [text("")]}], "non-whitespace"),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [use("t1")]},
                {"role": "user", "content": "no result"},
            ],
            "without `tool_result`",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [use("t1")]},
                {"role": "user", "content": [result("t1"), result("t9")]},
            ],
            "unexpected `tool_use_id`",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [use("t1")]},
                {"role": "user", "content": [text("first"), result("t1")]},
            ],
            "must come before",
        ),
        (
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [use("t1"), use("t1")]},
                {"role": "user", "content": [result("t1"), result("t1")]},
            ],
            "`tool_use` ids must be unique",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [text("a", True), text("b", True), text("c", True), text("d", True), text("e", True)],
                }
            ],
            "A maximum of 4 blocks",
        ),
        ([{"role": "user", "content": [text("a", True, "5m"), text("b", True, "1h")]}], "must not come after"),
    ],
)
def test_what_the_real_api_rejects_is_rejected(messages: list[dict], wording: str) -> None:
    found = problem(request(messages))
    assert found is not None and wording in found


def test_marks_in_the_system_prompt_and_tools_count_toward_the_four() -> None:
    tools = [{"name": "f", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}]
    body = request(
        [{"role": "user", "content": [text("a", True), text("b", True)]}],
        system=[text("s", True), text("t", True)],
        tools=tools,
    )
    assert "Found 5" in (problem(body) or "")


# -- the cache ------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def turns(n: int, marked_last: bool = True) -> list[dict]:
    messages: list[dict] = []
    for i in range(n):
        messages += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    messages.append({"role": "user", "content": [text("latest", marked_last)]})
    return messages


def test_a_marked_prefix_is_written_then_read() -> None:
    cache = PromptCache()
    body = request(turns(1), system=[text(LONG, True)])
    first = cache.use(flatten(body))
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens == flatten(body).total
    body["messages"][-1]["content"][0].pop("cache_control")
    body["messages"] += [{"role": "assistant", "content": "sure"}, {"role": "user", "content": [text("more", True)]}]
    second = cache.use(flatten(body))
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.prompt_tokens == flatten(body).total


def test_a_prefix_under_the_minimum_is_not_cached() -> None:
    cache = PromptCache()
    body = request(turns(1), system=[text("short", True)])
    assert cache.use(flatten(body)).cache_creation_input_tokens == 0
    assert cache.use(flatten(body)).cache_read_input_tokens == 0 and len(cache) == 0


def test_a_changed_byte_in_the_prefix_misses() -> None:
    cache = PromptCache()
    cache.use(flatten(request(turns(2), system=[text(LONG, True)])))
    changed = request(turns(2), system=[text(LONG[:-1] + "y", True)])
    assert cache.use(flatten(changed)).cache_read_input_tokens == 0


def test_the_lookback_reaches_twenty_blocks_and_no_further() -> None:
    def body(extra: int) -> dict:
        content = [text(LONG)] + [text(f"block {i}") for i in range(extra)]
        content[-1] = {**content[-1], "cache_control": {"type": "ephemeral"}}
        return request([{"role": "user", "content": content}])

    near, far = PromptCache(), PromptCache()
    near.use(flatten(body(1)))
    far.use(flatten(body(1)))
    assert near.use(flatten(body(20))).cache_read_input_tokens > 0  # 19 blocks after the cached one
    assert far.use(flatten(body(21))).cache_read_input_tokens == 0  # 20 blocks after: out of reach


def test_entries_expire_after_their_ttl_and_reads_renew_them() -> None:
    clock = Clock()
    cache = PromptCache(clock=clock)
    body = request(turns(1), system=[text(LONG, True)])
    cache.use(flatten(body))
    clock.now = 299
    assert cache.use(flatten(body)).cache_read_input_tokens > 0  # renewed at 299
    clock.now = 598
    assert cache.use(flatten(body)).cache_read_input_tokens > 0
    clock.now = 899
    assert cache.use(flatten(body)).cache_read_input_tokens == 0


def test_a_one_hour_entry_outlives_five_minutes() -> None:
    clock = Clock()
    cache = PromptCache(clock=clock)
    body = request(turns(1), system=[text(LONG, True, "1h")])
    assert cache.use(flatten(body)).ephemeral_1h_input_tokens > 0
    clock.now = 3_000
    assert cache.use(flatten(body)).cache_read_input_tokens > 0


def test_cache_marks_do_not_change_the_prefix_they_mark() -> None:
    marked = flatten(request(turns(1), system=[text(LONG, True)]))
    plain = flatten(request(turns(1, marked_last=False), system=[text(LONG)]))
    assert marked.hashes == plain.hashes and marked.tokens == plain.tokens


# -- over HTTP ------------------------------------------------------------------------


def test_errors_use_the_api_shape_and_overlong_prompts_are_refused() -> None:
    with FakeAnthropic(limit_tokens=500) as server:
        headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
        bad = httpx.post(
            f"{server.base_url}/v1/messages", headers=headers, json=request([{"role": "assistant", "content": "hi"}])
        )
        long = httpx.post(
            f"{server.base_url}/v1/messages", headers=headers, json=request([{"role": "user", "content": LONG}])
        )
        keyless = httpx.post(f"{server.base_url}/v1/messages", json=request([{"role": "user", "content": "hi"}]))
    assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_request_error"
    assert long.status_code == 400 and "prompt is too long: 1" in long.json()["error"]["message"]
    assert "> 500 maximum" in long.json()["error"]["message"]
    assert keyless.status_code == 401
    assert len(server.rejections) == 2
