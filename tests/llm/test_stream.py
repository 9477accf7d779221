"""Streaming and non-streamed calls through the real litellm code path, over HTTP to the scripted server."""

from __future__ import annotations

import json

import pytest

from hermeslite.llm.litellm_client import PLACEHOLDER_API_KEY
from hermeslite.llm.types import StreamedText
from tests.llm.helpers import TOOLS, USER, collect, completed, texts
from tests.server import MODEL, Reply, estimate_prompt_tokens, split_text


async def test_text_deltas_arrive_in_order_then_one_completed(scripted_server, make_client):
    scripted_server.enqueue(Reply.text("hello brave new world", chunks=4))
    events = await collect(make_client(), USER)

    assert texts(events) == split_text("hello brave new world", 4) == ["hello ", "brave", " new ", "world"]
    assert all(isinstance(e, StreamedText) for e in events[:-1])
    final = completed(events).completion
    assert final.message == {"role": "assistant", "content": "hello brave new world"}
    assert final.finish_reason == "stop"
    body = scripted_server.requests[0]
    assert final.usage.prompt_tokens == estimate_prompt_tokens(body)
    assert final.usage.completion_tokens == len("hello brave new world") // 4
    assert final.usage.cost is None  # test-model has no price


async def test_request_carries_model_messages_and_usage_option(scripted_server, make_client):
    await collect(make_client(), USER)
    body = scripted_server.requests[0]
    assert body["model"] == "test-model"
    assert body["messages"] == USER
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert "tools" not in body  # omitted, not sent as null or []


async def test_parallel_tool_calls_split_across_deltas_are_assembled(scripted_server, make_client):
    calls = [("terminal", {"cmd": "ls -la /tmp && echo done"}), ("read_file", {"path": "src/app.py", "limit": 200})]
    scripted_server.enqueue(Reply.tool_calls(calls))
    events = await collect(make_client(), USER, TOOLS)

    assert texts(events) == []
    final = completed(events).completion
    assert final.finish_reason == "tool_calls"
    assert final.message["content"] is None
    got = final.message["tool_calls"]
    assert [c["id"] for c in got] == ["call_0", "call_1"]
    assert [c["type"] for c in got] == ["function", "function"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in got] == calls
    assert scripted_server.requests[0]["tools"] == TOOLS


async def test_interleaved_fragments_of_parallel_calls_are_kept_apart(scripted_server, make_client):
    calls = [
        ("terminal", {"cmd": "pytest -q tests/llm"}),
        ("read_file", {"path": "README.md"}),
        ("terminal", {"cmd": "git status"}),
    ]
    scripted_server.enqueue(Reply.tool_calls(calls, interleave=True))
    final = completed(await collect(make_client(), USER, TOOLS)).completion
    got = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in final.message["tool_calls"]]
    assert got == calls


async def test_text_before_tool_calls_is_streamed_and_kept(scripted_server, make_client):
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"cmd": "ls"})], text="Let me look."))
    events = await collect(make_client(), USER, TOOLS)
    assert "".join(texts(events)) == "Let me look."
    message = completed(events).completion.message
    assert message["content"] == "Let me look."
    assert message["tool_calls"][0]["function"] == {"name": "terminal", "arguments": '{"cmd": "ls"}'}


async def test_private_keys_never_reach_the_server(scripted_server, make_client):
    messages = [
        {"role": "system", "content": "sys", "_pinned": True},
        {"role": "user", "content": "hi", "_id": 7, "_archive_ref": "r123"},
    ]
    await collect(make_client(), messages)
    await make_client().complete(messages)
    for body in scripted_server.requests:
        assert all(not key.startswith("_") for message in body["messages"] for key in message)
    assert messages[1]["_id"] == 7  # the caller's transcript is untouched


async def test_api_key_comes_from_the_configured_variable(scripted_server, make_client, monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", "secret-123")
    await collect(make_client(api_key_env="MY_LLM_KEY"), USER)
    assert scripted_server.request_headers[0]["authorization"] == "Bearer secret-123"


async def test_local_server_without_any_key_gets_a_placeholder(scripted_server, make_client):
    await collect(make_client(), USER)
    assert scripted_server.request_headers[0]["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"


async def test_complete_is_not_streamed(scripted_server, make_client):
    scripted_server.enqueue(Reply.text("a summary", usage=(120, 3)))
    completion = await make_client().complete(USER)
    assert completion.message == {"role": "assistant", "content": "a summary"}
    assert completion.finish_reason == "stop"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (120, 3)
    assert not scripted_server.requests[0].get("stream")


async def test_complete_returns_tool_calls(scripted_server, make_client):
    scripted_server.enqueue(Reply.tool_calls([("memory", {"action": "add", "text": "likes tea"})]))
    completion = await make_client().complete(USER, [{"type": "function", "function": {"name": "memory"}}])
    call = completion.message["tool_calls"][0]
    assert call["id"] == "call_0" and call["function"]["name"] == "memory"
    assert json.loads(call["function"]["arguments"]) == {"action": "add", "text": "likes tea"}
    assert completion.finish_reason == "tool_calls"


async def test_complete_timeout_bounds_the_whole_call(scripted_server, make_client):
    from hermeslite.llm.errors import TransientError

    scripted_server.enqueue(Reply.delay(2, Reply.text("late")))
    with pytest.raises(TransientError, match=r"did not answer within 0\.3 s"):
        await make_client(max_retries=3).complete(USER, timeout=0.3)
    assert len(scripted_server.requests) == 1  # no retry that cannot finish before the deadline


def test_override_model_uses_its_own_provider_defaults(make_client, monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", "secret-123")
    client = make_client(api_key_env="MY_LLM_KEY")
    main = client._request(USER, None, model=None, stream=False, timeout=5)
    same = client._request(USER, None, model=MODEL, stream=False, timeout=5)
    other = client._request(USER, None, model="openai/gpt-4o-mini", stream=False, timeout=5)
    assert main["api_base"] == same["api_base"] and main["api_key"] == same["api_key"] == "secret-123"
    assert other["model"] == "openai/gpt-4o-mini"
    assert "api_base" not in other and "api_key" not in other
    assert main["max_retries"] == 0  # the SDK's own retries are off: ours count


async def test_abandoning_a_stream_releases_it(scripted_server, make_client):
    scripted_server.enqueue(Reply.text("one two three four", chunks=4), Reply.text("next"))
    client = make_client()
    stream = client.stream(USER)
    first = await anext(stream)
    assert isinstance(first, StreamedText)
    await stream.aclose()
    final = completed(await collect(client, USER)).completion
    assert final.message["content"] == "next"


async def test_cost_is_reported_for_priced_models(scripted_server, make_client):
    scripted_server.enqueue(Reply.text("hi", usage=(1000, 100)), Reply.text("hi", usage=(1000, 100)))
    client = make_client(name="openai/gpt-4o")
    streamed = completed(await collect(client, USER)).completion.usage
    assert (streamed.prompt_tokens, streamed.completion_tokens) == (1000, 100)
    assert streamed.cost and 0 < streamed.cost < 0.1
    plain = (await client.complete(USER)).usage
    assert plain.cost == pytest.approx(streamed.cost)


async def test_reported_prompt_tokens_include_the_tool_schemas(scripted_server, make_client):
    """A provider counts the tool schemas as input; the scripted server must too, or the meter jumps."""
    client = make_client()
    bare = completed(await collect(client, USER)).completion.usage.prompt_tokens
    with_tools = completed(await collect(client, USER, TOOLS)).completion.usage.prompt_tokens
    assert with_tools == estimate_prompt_tokens(scripted_server.requests[1])
    assert with_tools - bare == pytest.approx(len(json.dumps(scripted_server.requests[1]["tools"])) // 4, abs=1)
