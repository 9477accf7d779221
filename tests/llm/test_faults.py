"""Provider faults over real HTTP that used to reach the user as the wrong message or a silent success."""

from __future__ import annotations

import json
import re
import time

import pytest

from hermeslite.llm.classify import classify
from hermeslite.llm.errors import AuthError, ContextOverflow, FatalError, IncompleteReply, TransientError
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.llm.types import StreamedText
from tests.llm.helpers import TOOLS, USER, collect, completed, texts
from tests.server import Reply


def one_line(err: Exception) -> str:
    message = str(err)
    assert message and "\n" not in message and len(message) <= 300
    assert not re.search(r"litellm\.[A-Z]", message) and "Traceback" not in message and "Exception -" not in message
    return message


# -- credentials and providers, checked before the first request -----------------------


@pytest.mark.parametrize(
    "name, variable",
    [
        ("openai/gpt-4o", "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("gpt-4o", "OPENAI_API_KEY"),
    ],
)
async def test_missing_key_fails_at_once_naming_the_variable(monkeypatch, name, variable):
    monkeypatch.delenv(variable, raising=False)
    notices = []
    client = LiteLLMClient(ModelConfig(name=name), on_retry=notices.append)
    from hermeslite.llm.setup import load_litellm

    load_litellm()  # its import (seconds) is not what is timed below
    start = time.monotonic()
    with pytest.raises(AuthError) as info:
        await collect(client, USER)
    assert time.monotonic() - start < 1.0
    assert one_line(info.value) == (
        f"No API key for {name}: {variable} is not set; export {variable}=<your key>, "
        "or name the variable that holds the key in model.api_key_env."
    )
    assert notices == []
    with pytest.raises(AuthError):
        await client.prepare()  # what /model awaits: refused before any message is sent


async def test_configured_key_variable_is_the_one_named(scripted_server, make_client, monkeypatch):
    monkeypatch.delenv("TEAM_LLM_KEY", raising=False)
    client = make_client(name="anthropic/claude-sonnet-4-5", api_base=None, api_key_env="TEAM_LLM_KEY")
    with pytest.raises(AuthError, match=r"model.api_key_env names TEAM_LLM_KEY, but TEAM_LLM_KEY is not set"):
        await client.prepare()
    monkeypatch.setenv("TEAM_LLM_KEY", "sk-team")
    await make_client(api_key_env="TEAM_LLM_KEY").prepare()
    completion = completed(await collect(make_client(api_key_env="TEAM_LLM_KEY"), USER)).completion
    assert completion.message["content"] == "ok"
    assert scripted_server.request_headers[-1]["authorization"] == "Bearer sk-team"


@pytest.mark.parametrize("name", ["foo/bar", "mymodel"])
async def test_unknown_provider_is_refused_before_any_request(scripted_server, make_client, name):
    client = make_client(name=name)
    with pytest.raises(FatalError) as info:
        await client.prepare()
    assert f"litellm does not know the provider of the model {name!r}" in one_line(info.value)
    with pytest.raises(FatalError):
        await client.complete(USER)
    assert scripted_server.requests == []


async def test_local_endpoints_need_no_key(scripted_server, make_client):
    assert await LiteLLMClient(ModelConfig(name="ollama/llama3.1")).prepare() == 8192
    assert await LiteLLMClient(ModelConfig(name="ollama_chat/qwen3", context_window=4096)).prepare() == 4096
    assert texts(await collect(make_client(name="hosted_vllm/my-model"), USER)) == ["ok"]


async def test_a_proxy_in_front_of_anthropic_still_needs_the_key_and_nothing_is_sent(fake_anthropic, monkeypatch):
    # litellm refuses to send without the key; that reached the user as "the provider rejected the key (401)".
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    client = LiteLLMClient(ModelConfig(name="anthropic/claude-sonnet-4-5", api_base=fake_anthropic.base_url))
    with pytest.raises(AuthError) as info:
        await collect(client, USER)
    assert one_line(info.value).startswith("No API key for anthropic/claude-sonnet-4-5: ANTHROPIC_API_KEY is not set")
    assert fake_anthropic.exchanges == []


async def test_a_key_saved_in_the_config_is_the_one_sent(fake_anthropic, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    saved = ModelConfig(name="anthropic/claude-sonnet-4-5", api_base=fake_anthropic.base_url, api_key="sk-saved")
    assert texts(await collect(LiteLLMClient(saved), USER))
    assert [x.status for x in fake_anthropic.exchanges] == [200]


async def test_summary_model_override_is_checked_with_its_own_provider(scripted_server, make_client, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    client = make_client()
    assert (await client.complete(USER)).message["content"] == "ok"
    with pytest.raises(AuthError, match="ANTHROPIC_API_KEY"):
        await client.complete(USER, model="anthropic/claude-3-5-haiku-latest", timeout=5)
    assert len(scripted_server.requests) == 1


def test_sdk_missing_credentials_is_an_auth_error_not_a_server_error():
    from hermeslite.llm.setup import load_litellm

    litellm = load_litellm()
    exc = litellm.InternalServerError(
        "OpenAIException - Missing credentials. Please pass an `api_key`, or set the `OPENAI_API_KEY` "
        "environment variable.",
        llm_provider="openai",
        model="gpt-4o",
    )
    err = classify(exc, model="openai/gpt-4o")
    assert type(err) is AuthError
    assert (
        one_line(err)
        == "No API key for openai/gpt-4o: OPENAI_API_KEY is not set. Set OPENAI_API_KEY or model.api_key_env."
    )


# -- overflow reported only in the text --------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        Reply.stream_error("error code: 413"),
        Reply.error(502, "error code: 413"),
        Reply.stream_error("upstream: prompt too long for this model"),
    ],
)
async def test_overflow_in_the_text_alone_is_an_overflow(scripted_server, make_client, reply):
    scripted_server.enqueue(reply, Reply.text("never requested"))
    with pytest.raises(ContextOverflow) as info:
        await collect(make_client(), USER)
    one_line(info.value)
    assert len(scripted_server.requests) == 1  # an overflow is compacted, never retried as it is


# -- incomplete and empty replies -------------------------------------------------------------


async def test_stream_without_a_finish_reason_is_incomplete(scripted_server, make_client):
    scripted_server.enqueue(Reply.unfinished("The answer is", chunks=2), Reply.text("never requested"))
    events: list = []
    with pytest.raises(IncompleteReply) as info:
        await collect(make_client(), USER, into=events)
    assert "".join(texts(events)) == "The answer is"
    assert not any(not isinstance(e, StreamedText) for e in events)  # no Completed: it is not an answer
    assert one_line(info.value).startswith("The provider ended the reply without finishing it")
    assert len(scripted_server.requests) == 1  # text was shown: not retried


@pytest.mark.parametrize("usage_only", [False, True])
async def test_empty_reply_is_retried_then_reported(scripted_server, make_client, usage_only):
    scripted_server.enqueue(Reply.empty(usage_only), Reply.text("second try"))
    assert texts(await collect(make_client(), USER)) == ["second try"]
    scripted_server.enqueue(*[Reply.empty(usage_only)] * 2)
    notices = []
    with pytest.raises(IncompleteReply) as info:
        await collect(make_client(max_retries=1, on_retry=notices.append), USER)
    assert one_line(info.value).startswith("The provider returned an empty reply")
    assert [(n.attempt, n.error.brief) for n in notices] == [(1, "empty reply")]
    assert len(scripted_server.requests) == 4


async def test_tool_calls_cut_off_are_never_returned_and_the_call_is_retried(scripted_server, make_client):
    scripted_server.enqueue(
        Reply.unfinished(calls=[("terminal", {"command": "rm -rf build"})]),
        Reply.tool_calls([("terminal", {"command": "ls"})]),
    )
    final = completed(await collect(make_client(), USER)).completion
    assert [c["function"]["arguments"] for c in final.message["tool_calls"]] == ['{"command": "ls"}']
    assert len(scripted_server.requests) == 2


# -- timeouts and the retry budget -------------------------------------------------------------


async def test_silence_mid_stream_times_out_after_model_timeout(scripted_server, make_client):
    scripted_server.enqueue(Reply.stall(4, Reply.text("slow reply", chunks=2), after_chunks=2))
    events: list = []
    start = time.monotonic()
    with pytest.raises(TransientError) as info:
        await collect(make_client(timeout=1), USER, into=events)
    assert 0.9 < time.monotonic() - start < 3
    assert texts(events) == ["slow "]
    assert "raise model.timeout" in one_line(info.value)


async def test_silence_before_the_first_chunk_is_retried(scripted_server, make_client):
    scripted_server.enqueue(Reply.stall(3, Reply.text("late")), Reply.text("on time"))
    notices = []
    events = await collect(make_client(timeout=1, on_retry=notices.append), USER)
    assert texts(events) == ["on time"]
    assert [n.error.brief for n in notices] == ["timed out"]


async def test_no_retry_starts_after_twice_the_timeout(scripted_server, make_client):
    scripted_server.enqueue(*[Reply.delay(3, Reply.text("late"))] * 4)
    notices = []
    start = time.monotonic()
    with pytest.raises(TransientError):
        await collect(make_client(timeout=1, max_retries=3, on_retry=notices.append), USER)
    assert time.monotonic() - start < 3
    assert len(scripted_server.requests) == 2 and len(notices) == 1


# -- litellm's repetition guard ---------------------------------------------------------------------


async def test_repetition_guard_is_named_not_called_a_server_error(scripted_server, make_client):
    scripted_server.enqueue(Reply.text("loop" * 150, chunks=150), Reply.text("never requested"))
    with pytest.raises(FatalError) as info:
        await collect(make_client(), USER)
    message = one_line(info.value)
    assert "repetition guard" in message and "server error" not in message and "500" not in message
    assert info.value.brief == "model repeating itself"
    assert len(scripted_server.requests) == 1


# -- tool calls that share one id ------------------------------------------------------------


@pytest.mark.parametrize("streamed", [True, False])
async def test_calls_sharing_one_id_get_their_own_in_order(scripted_server, make_client, streamed):
    calls = [("read_file", {"path": f"{n}.txt"}) for n in range(3)]
    scripted_server.enqueue(Reply.tool_calls(calls, ids=["same"] * 3))
    client = make_client()
    completion = (
        completed(await collect(client, USER, TOOLS)).completion if streamed else await client.complete(USER, TOOLS)
    )
    got = [(c["id"], json.loads(c["function"]["arguments"])["path"]) for c in completion.message["tool_calls"]]
    assert got == [("same", "0.txt"), ("same_2", "1.txt"), ("same_3", "2.txt")]


# -- a server that is not the API ----------------------------------------------------------


async def test_an_html_page_is_named_at_once_without_retries(scripted_server, make_client):
    """A misconfigured api_base (a web server's front page) answers 200 with HTML: streamed and not."""
    scripted_server.enqueue(Reply.html(), Reply.html())
    notices = []
    client = make_client(on_retry=notices.append)
    expected = (
        f"The server at {scripted_server.base_url} answered with an HTML page, not the API: check model.api_base."
    )
    with pytest.raises(FatalError) as streamed:
        await collect(client, USER)
    assert one_line(streamed.value) == expected
    with pytest.raises(FatalError) as whole:
        await client.complete(USER)
    assert one_line(whole.value) == expected
    assert notices == [] and len(scripted_server.requests) == 2


async def test_a_login_page_is_an_html_page_not_an_auth_error(scripted_server, make_client):
    scripted_server.enqueue(Reply.html("<html><body>Authentication required: please sign in</body></html>"))
    with pytest.raises(FatalError) as info:
        await make_client().complete(USER)
    assert "answered with an HTML page" in one_line(info.value)
