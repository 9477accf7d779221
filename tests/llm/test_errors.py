"""Provider failures over real HTTP: classification, retries, and silence on stdout/stderr."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from hermeslite.llm.errors import AuthError, ContextOverflow, FatalError, RateLimited, TransientError, Unreachable
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.llm.types import StreamedText
from tests.llm.helpers import USER, collect, completed, texts
from tests.server import MODEL, Reply


def assert_one_line(err: Exception) -> None:
    message = str(err)
    assert message and "\n" not in message and len(message) <= 300
    assert "litellm." not in message and "Traceback" not in message and "OpenAIException" not in message


async def test_context_length_exceeded_is_an_overflow_with_the_stated_limit(scripted_server, make_client):
    scripted_server.enqueue(Reply.context_length_exceeded(limit=4096, tokens=5000))
    with pytest.raises(ContextOverflow) as info:
        await collect(make_client(), USER)
    assert info.value.limit == 4096
    assert info.value.status_code == 400
    assert MODEL in str(info.value) and "4,096" in str(info.value)
    assert_one_line(info.value)
    assert len(scripted_server.requests) == 1  # an overflow is never retried as-is


async def test_overflow_above_threshold_then_a_smaller_request_succeeds(scripted_server, make_client):
    scripted_server.overflow_above(200, limit=8000)
    client = make_client()
    with pytest.raises(ContextOverflow) as info:
        await client.complete([{"role": "user", "content": "x" * 2000}])
    assert info.value.limit == 8000
    reply = await client.complete(USER)
    assert reply.message["content"] == "ok"


async def test_llama_cpp_overflow_message_is_recognised(scripted_server, make_client):
    scripted_server.enqueue(
        Reply.error(
            400,
            "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it",
            type="exceed_context_size_error",
        )
    )
    with pytest.raises(ContextOverflow) as info:
        await collect(make_client(), USER)
    assert info.value.limit == 4096


async def test_413_is_an_overflow(scripted_server, make_client):
    scripted_server.enqueue(Reply.error(413, "Request Entity Too Large"))
    with pytest.raises(ContextOverflow) as info:
        await collect(make_client(), USER)
    assert info.value.limit is None
    assert "413" in str(info.value)
    assert len(scripted_server.requests) == 1


async def test_429_then_success_is_retried(scripted_server, make_client):
    retries = []
    scripted_server.enqueue(Reply.error(429, "Rate limit reached for requests"), Reply.text("made it", chunks=2))
    client = make_client(
        on_retry=lambda notice: retries.append(
            (type(notice.error), notice.attempt, notice.max_retries, notice.delay, notice.error.brief)
        )
    )
    events = await collect(client, USER)
    assert "".join(texts(events)) == "made it"
    assert completed(events).completion.message["content"] == "made it"
    assert len(scripted_server.requests) == 2
    assert retries == [(RateLimited, 1, 3, 0.01, "rate limited")]


async def test_429_beyond_max_retries_raises_rate_limited(scripted_server, make_client):
    scripted_server.enqueue(*[Reply.error(429, "Rate limit reached")] * 3)
    retries = []
    client = make_client(max_retries=2, on_retry=lambda notice: retries.append(notice.delay))
    with pytest.raises(RateLimited) as info:
        await collect(client, USER)
    assert_one_line(info.value)
    assert len(scripted_server.requests) == 3
    assert retries == [0.01, 0.02]  # exponential backoff


async def test_retry_after_header_is_honoured(scripted_server, make_client):
    scripted_server.enqueue(Reply.error(429, "slow down", headers={"Retry-After": "0.4"}), Reply.text("ok"))
    start = time.monotonic()
    completion = await make_client().complete(USER)
    assert completion.message["content"] == "ok"
    assert time.monotonic() - start >= 0.4


async def test_quota_429_is_an_auth_error_and_not_retried(scripted_server, make_client):
    scripted_server.enqueue(
        Reply.error(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            code="insufficient_quota",
            type="insufficient_quota",
        )
    )
    with pytest.raises(AuthError) as info:
        await collect(make_client(), USER)
    assert "quota" in str(info.value)
    assert len(scripted_server.requests) == 1


async def test_401_is_an_auth_error_with_a_one_line_hint(scripted_server, make_client):
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided: sk-test.", code="invalid_api_key"))
    with pytest.raises(AuthError) as info:
        await collect(make_client(), USER)
    assert str(info.value) == (
        "The provider rejected the API key for openai/test-model (401). Set OPENAI_API_KEY or model.api_key_env."
    )
    assert len(scripted_server.requests) == 1


async def test_401_hint_names_the_configured_key_variable(scripted_server, make_client, monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", "wrong")
    scripted_server.enqueue(Reply.error(401, "bad key"))
    with pytest.raises(AuthError, match=r"\(401\)\. Set MY_LLM_KEY\.$"):
        await make_client(api_key_env="MY_LLM_KEY").complete(USER)


async def test_unset_key_variable_fails_before_any_request(scripted_server, make_client, monkeypatch):
    monkeypatch.delenv("MY_LLM_KEY", raising=False)
    with pytest.raises(AuthError, match="MY_LLM_KEY"):
        await collect(make_client(api_key_env="MY_LLM_KEY"), USER)
    assert scripted_server.requests == []


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_server_error_then_success_is_retried(scripted_server, make_client, status):
    scripted_server.enqueue(Reply.error(status, "upstream exploded"), Reply.text("fine"))
    events = await collect(make_client(), USER)
    assert texts(events) == ["fine"]
    assert len(scripted_server.requests) == 2


async def test_server_errors_beyond_max_retries_raise_transient(scripted_server, make_client):
    scripted_server.enqueue(*[Reply.error(500, "boom")] * 2)
    with pytest.raises(TransientError) as info:
        await make_client(max_retries=1).complete(USER)
    assert "server error (500)" in str(info.value) and "boom" in str(info.value)
    assert_one_line(info.value)


async def test_disconnect_before_any_text_is_retried(scripted_server, make_client):
    scripted_server.enqueue(Reply.disconnect(after_chunks=0), Reply.text("recovered"))
    events = await collect(make_client(), USER)
    assert texts(events) == ["recovered"]
    assert len(scripted_server.requests) == 2


async def test_disconnect_after_text_raises_transient_without_retry(scripted_server, make_client):
    scripted_server.enqueue(Reply.disconnect(after_chunks=2), Reply.text("never requested"))
    events: list = []
    with pytest.raises(TransientError) as info:
        await collect(make_client(), USER, into=events)
    assert [e.text for e in events if isinstance(e, StreamedText)] == ["part0 ", "part1 "]
    assert "dropped" in str(info.value)
    assert_one_line(info.value)
    assert len(scripted_server.requests) == 1


def closed_port() -> int:
    """A port on 127.0.0.1 that nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_refused_connection_says_nothing_is_listening_without_retrying():
    retries = []
    port = closed_port()
    client = LiteLLMClient(
        ModelConfig(name=MODEL, api_base=f"http://127.0.0.1:{port}/v1"), max_retries=3, on_retry=retries.append
    )
    with pytest.raises(Unreachable) as info:
        await collect(client, USER)
    assert str(info.value) == (
        f"{MODEL}: nothing is listening on 127.0.0.1:{port}; check that the server is "
        "running and model.api_base is right."
    )
    assert retries == []


@pytest.mark.parametrize("name", ["ollama/llama3.1", "ollama_chat/llama3.1"])
async def test_ollama_not_running_asks_whether_it_is(name):
    port = closed_port()
    client = LiteLLMClient(ModelConfig(name=name, api_base=f"http://127.0.0.1:{port}"), max_retries=0)
    with pytest.raises(Unreachable) as info:
        await client.complete(USER)
    assert str(info.value) == f"{name}: nothing is listening on 127.0.0.1:{port} (is Ollama running?)."
    assert "SSLContext" not in str(info.value)


async def test_unknown_model_is_fatal(scripted_server, make_client):
    scripted_server.enqueue(Reply.error(404, "The model `test-model` does not exist", code="model_not_found"))
    with pytest.raises(FatalError) as info:
        await collect(make_client(), USER)
    assert "does not exist" in str(info.value) and "model.name" in str(info.value)
    assert len(scripted_server.requests) == 1


async def test_bad_request_is_fatal_and_not_retried(scripted_server, make_client):
    scripted_server.enqueue(Reply.error(400, "Invalid value for 'tool_choice': must be 'auto'."))
    with pytest.raises(FatalError) as info:
        await make_client().complete(USER)
    assert str(info.value) == (
        "openai/test-model refused the request (400): Invalid value for 'tool_choice': must be 'auto'."
    )
    assert len(scripted_server.requests) == 1


async def test_failing_calls_print_nothing(scripted_server, make_client, capfd):
    scripted_server.enqueue(
        Reply.error(401, "bad key"),
        Reply.context_length_exceeded(),
        *[Reply.error(500, "boom")] * 2,
        Reply.disconnect(after_chunks=1),
    )
    client = make_client(max_retries=1)
    capfd.readouterr()
    for _ in range(4):
        with pytest.raises((AuthError, ContextOverflow, TransientError)):
            await collect(client, USER)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


async def test_a_stalled_stream_times_out_and_is_retried(scripted_server, make_client):
    scripted_server.enqueue(Reply.delay(2.5, Reply.text("too late")), Reply.text("second try"))
    events = await collect(make_client(timeout=1, max_retries=1), USER)
    assert texts(events) == ["second try"]
    assert len(scripted_server.requests) == 2


async def test_timeouts_beyond_retries_raise_transient(scripted_server, make_client):
    scripted_server.enqueue(Reply.delay(2.5, Reply.text("too late")))
    with pytest.raises(TransientError, match=r"did not answer in time.*raise model\.timeout"):
        await collect(make_client(timeout=1, max_retries=0), USER)


@pytest.mark.parametrize("call", ["stream", "complete"])
async def test_cancellation_propagates_unchanged(scripted_server, make_client, call):
    scripted_server.enqueue(Reply.delay(3, Reply.text("slow")))
    client = make_client()
    job = collect(client, USER) if call == "stream" else client.complete(USER)
    task = asyncio.ensure_future(job)
    while not scripted_server.requests:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
