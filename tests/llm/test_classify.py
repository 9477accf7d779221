"""classify(): constructed litellm exceptions and plain messages -> the five errors, one sentence each."""

from __future__ import annotations

import httpx
import pytest

from hermeslite.llm.classify import classify, first_line
from hermeslite.llm.errors import (
    AuthError,
    ContextOverflow,
    FatalError,
    LLMError,
    RateLimited,
    TransientError,
    Unreachable,
)
from hermeslite.llm.provider_signals import parse_context_limit, refused_address, retry_after_seconds

M = "openai/gpt-4o"


@pytest.fixture(scope="module")
def litellm():
    from hermeslite.llm.setup import load_litellm

    return load_litellm()


def response(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=httpx.Request("POST", "http://127.0.0.1:9/v1"))


def assert_sentence(err: LLMError) -> None:
    text = str(err)
    assert text and "\n" not in text and len(text) <= 300
    assert not text.startswith("litellm") and "Exception -" not in text


# -- litellm exception classes ------------------------------------------------


def test_context_window_exceeded_is_caught_before_bad_request(litellm):
    exc = litellm.ContextWindowExceededError(
        "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.",
        model="gpt-4o",
        llm_provider="openai",
    )
    err = classify(exc, model=M)
    assert type(err) is ContextOverflow and err.limit == 32768
    assert err.__cause__ is exc
    assert str(err) == "The conversation is too long for openai/gpt-4o, whose context window is 32,768 tokens."


def test_bad_request_with_overflow_phrase_is_an_overflow(litellm):
    exc = litellm.BadRequestError("Input is too long for requested model.", model="m", llm_provider="bedrock")
    err = classify(exc)
    assert type(err) is ContextOverflow and err.limit is None
    assert "bedrock/m" in str(err)


def test_413_status_is_an_overflow(litellm):
    exc = litellm.BadRequestError("payload", model="m", llm_provider="openai", response=response(413))
    exc.status_code = 413
    assert type(classify(exc, model=M)) is ContextOverflow


def test_authentication_error_names_the_key_variable(litellm):
    exc = litellm.AuthenticationError("Incorrect API key provided: sk-abc", llm_provider="openai", model="gpt-4o")
    err = classify(exc, model=M)
    assert type(err) is AuthError and err.status_code == 401
    assert (
        str(err)
        == "The provider rejected the API key for openai/gpt-4o (401). Set OPENAI_API_KEY or model.api_key_env."
    )
    err = classify(exc, model=M, api_key_env="WORK_OPENAI_KEY")
    assert str(err).endswith("Set WORK_OPENAI_KEY.")


def test_anthropic_key_hint(litellm):
    exc = litellm.AuthenticationError("invalid x-api-key", llm_provider="anthropic", model="claude-sonnet-4-5")
    assert "ANTHROPIC_API_KEY" in str(classify(exc, model="anthropic/claude-sonnet-4-5"))


def test_permission_denied_is_auth(litellm):
    exc = litellm.PermissionDeniedError("not allowed", llm_provider="openai", model="gpt-4o", response=response(403))
    err = classify(exc, model=M)
    assert type(err) is AuthError and err.status_code == 403 and "denied" in str(err)
    assert_sentence(err)


def test_quota_rate_limit_is_auth_not_rate_limited(litellm):
    exc = litellm.RateLimitError(
        "You exceeded your current quota, please check your plan and billing details.",
        llm_provider="openai",
        model="gpt-4o",
    )
    err = classify(exc, model=M)
    assert type(err) is AuthError and "quota" in str(err)


def test_rate_limit(litellm):
    exc = litellm.RateLimitError(
        "Rate limit reached for gpt-4o",
        llm_provider="openai",
        model="gpt-4o",
        response=response(429, {"retry-after": "7"}),
    )
    err = classify(exc, model=M)
    assert type(err) is RateLimited and "wait 7 s" in str(err)
    assert retry_after_seconds(exc) == 7


def test_openai_tpm_limit_is_rate_limited_not_overflow(litellm):
    exc = litellm.RateLimitError(
        "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000.",
        llm_provider="openai",
        model="gpt-4o",
    )
    assert type(classify(exc)) is RateLimited


@pytest.mark.parametrize(
    "make",
    [
        lambda lm: lm.Timeout("Request timed out", model="gpt-4o", llm_provider="openai"),
        lambda lm: lm.APIConnectionError("Connection error.", llm_provider="openai", model="gpt-4o"),
        lambda lm: lm.InternalServerError("boom", llm_provider="openai", model="gpt-4o"),
        lambda lm: lm.ServiceUnavailableError("overloaded", llm_provider="openai", model="gpt-4o"),
        lambda lm: lm.BadGatewayError("bad gateway", llm_provider="openai", model="gpt-4o"),
    ],
)
def test_transient_classes(litellm, make):
    err = classify(make(litellm), model=M)
    assert type(err) is TransientError
    assert_sentence(err)


def test_timeout_message(litellm):
    err = classify(litellm.Timeout("Request timed out", model="gpt-4o", llm_provider="openai"), model=M)
    assert str(err).startswith("openai/gpt-4o did not answer in time")


def test_mid_stream_fallback_is_classified_by_what_it_wraps(litellm):
    from litellm.exceptions import MidStreamFallbackError

    inner = litellm.APIConnectionError("Response payload is not completed", llm_provider="openai", model="gpt-4o")
    outer = MidStreamFallbackError("stream broke", model="gpt-4o", llm_provider="openai", original_exception=inner)
    err = classify(outer, model=M)
    assert type(err) is TransientError and "dropped" in str(err)

    overflow = litellm.ContextWindowExceededError(
        "maximum context length is 8192 tokens", model="x", llm_provider="openai"
    )
    outer = MidStreamFallbackError("stream broke", model="x", llm_provider="openai", original_exception=overflow)
    assert classify(outer).limit == 8192


def test_not_found_and_bad_request_are_fatal(litellm):
    nf = classify(litellm.NotFoundError("The model `gpt-9` does not exist", model="gpt-9", llm_provider="openai"))
    assert type(nf) is FatalError and "openai/gpt-9" in str(nf) and "model.name" in str(nf)
    bad = classify(
        litellm.BadRequestError("Invalid 'tools[0].function.name'", model="gpt-4o", llm_provider="openai"), model=M
    )
    assert type(bad) is FatalError
    assert str(bad) == "openai/gpt-4o refused the request (400): Invalid 'tools[0].function.name'."


# -- plain exceptions and messages ----------------------------------------------------


class StatusError(Exception):
    def __init__(self, message: str, status_code: int | None = None, body: dict | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body


@pytest.mark.parametrize(
    "message, limit",
    [
        (
            "This model's maximum context length is 32768 tokens. However, your messages resulted in 40000 tokens.",
            32768,
        ),
        ("the request exceeds the available context size (4096 tokens), try increasing it", 4096),
        ("prompt exceeds the context window of 8192 tokens", 8192),
        ("prompt is too long: 210000 tokens > 200000 maximum", 200000),
        ("The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1048576),
        ("This model's maximum context length is 128,000 tokens.", 128000),
        ("too many tokens in the prompt", None),
        ("Input length exceeds max_model_len", None),
    ],
)
def test_overflow_phrases_and_limits(message, limit):
    err = classify(StatusError(message, 400), model="openai/local")
    assert type(err) is ContextOverflow
    assert err.limit == limit
    assert_sentence(err)


def test_overflow_limit_from_llama_cpp_body():
    body = {
        "error": {
            "code": 400,
            "message": "request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    }
    err = classify(StatusError("Error code: 400", 400, body))
    assert type(err) is ContextOverflow and err.limit == 4096


def test_request_entity_too_large_text_is_an_overflow():
    assert type(classify(Exception("413 Request Entity Too Large"))) is ContextOverflow


@pytest.mark.parametrize(
    "status, message, kind",
    [
        (401, "unauthorized", AuthError),
        (402, "Payment Required", AuthError),
        (403, "forbidden", AuthError),
        (None, "Your credit balance is too low to access the API", AuthError),
        (429, "slow down", RateLimited),
        (500, "internal error", TransientError),
        (504, "gateway timeout", TransientError),
        (404, "no such model", FatalError),
        (400, "messages: roles must alternate", FatalError),
        (None, "something odd", FatalError),
    ],
)
def test_status_codes_and_phrases(status, message, kind):
    err = classify(StatusError(message, status), model=M)
    assert type(err) is kind
    if status:
        assert err.status_code == status
    assert_sentence(err)


@pytest.mark.parametrize("exc", [ConnectionResetError("reset by peer"), TimeoutError(), EOFError()])
def test_builtin_network_errors_are_transient(exc):
    assert type(classify(exc, model=M)) is TransientError


def test_llm_errors_pass_through():
    original = RateLimited("already classified")
    assert classify(original) is original


def test_multiline_junk_is_trimmed_to_the_first_meaningful_line():
    message = (
        "litellm.BadRequestError: OpenAIException - Unsupported parameter: 'foo'\n\n"
        'Traceback (most recent call last):\n  File "x.py", line 1\n'
        "Give Feedback / Get Help: https://github.com/BerriAI/litellm/issues/new"
    )
    err = classify(StatusError(message, 400), model=M)
    assert str(err) == "openai/gpt-4o refused the request (400): Unsupported parameter: 'foo'."


def test_json_error_bodies_are_unwrapped():
    exc = StatusError('OpenAIException - {"error": {"message": "Invalid schema for function", "code": null}}', 400)
    assert first_line(exc) == "Invalid schema for function"


def test_secrets_in_provider_text_are_redacted():
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    err = classify(StatusError(f"Key {key} is not allowed for this org", 400), model=M)
    assert key not in str(err)


def test_long_details_are_capped():
    err = classify(StatusError("x" * 5000, 400), model=M)
    assert len(str(err)) <= 300


def test_parse_context_limit_ignores_implausible_numbers():
    assert parse_context_limit("maximum context length is 12 tokens") is None
    assert parse_context_limit("nothing here") is None


def test_retry_after_forms():
    class E(Exception):
        pass

    e = E()
    e.response = response(429, {"retry-after-ms": "1500"})
    assert retry_after_seconds(e) == 1.5
    e.response = response(429, {"retry-after": "soon"})
    assert retry_after_seconds(e) is None
    assert retry_after_seconds(E()) is None


@pytest.mark.parametrize(
    "message",
    ["error code: 413", "Error code: 413 - upstream refused the body", "proxy said: HTTP/1.1 413", "status_code=413"],
)
def test_a_413_left_only_in_the_text_is_an_overflow(message):
    err = classify(StatusError(message), model=M)
    assert type(err) is ContextOverflow and "413" in str(err)


@pytest.mark.parametrize(
    "message, kind",
    [
        ("error code: 4130", FatalError),
        ("Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000", RateLimited),
    ],
)
def test_lookalikes_of_413_are_not_overflows(message, kind):
    status = 429 if kind is RateLimited else None
    assert type(classify(StatusError(message, status), model=M)) is kind


def test_refused_connection_names_the_address_the_library_named():
    def refused(outer_message: str) -> Exception:
        try:
            try:
                raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 11434)")
            except ConnectionRefusedError as inner:
                raise StatusError(outer_message, 500) from inner
        except StatusError as exc:
            return exc

    aiohttp_style = refused(
        "Cannot connect to host localhost:11434 ssl:<ssl.SSLContext object at 0x7f00> "
        "[Connect call failed ('127.0.0.1', 11434)]"
    )
    assert refused_address(aiohttp_style) == "localhost:11434"
    err = classify(aiohttp_style, model="ollama_chat/llama3.1")
    assert type(err) is Unreachable
    assert str(err) == "ollama_chat/llama3.1: nothing is listening on localhost:11434 (is Ollama running?)."
    assert refused_address(refused("Connection error.")) == "127.0.0.1:11434"
    configured = classify(refused("Connection error."), model=M, api_base="https://proxy.example/v1")
    assert "nothing is listening on proxy.example:443" in str(configured)
    assert refused_address(StatusError("Connection error.", 500)) is None


def test_repetition_guard_is_fatal_and_says_what_it_is(litellm):
    exc = litellm.InternalServerError("The model is repeating the same chunk = ha ha ha.", model="", llm_provider="")
    err = classify(exc, model=M)
    assert type(err) is FatalError and "repetition guard" in str(err) and "server error" not in str(err)
    assert_sentence(err)
