"""What a provider exception says, read without importing litellm.

`classify` decides from facts scattered over litellm's and the providers'
exception objects: class names anywhere in the MRO, an HTTP status on the
exception or its response, phrases in a message that may be prefixed or
wrapped in a JSON body, a context limit stated in prose or in the body, and
Retry-After headers. The phrase tables and the readers that extract those
facts live here, apart from the decision order and the wording in
`classify.py`, so the tables can grow without burying that order. The
client's backoff reads `retry_after_seconds` directly.
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

OVERFLOW_PHRASES = (
    "context length",
    "context_length_exceeded",
    "maximum context",
    "context window",
    "context size",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "max_model_len",
    "maximum model length",
    "maximum input length",
    "reduce the length of the messages",
    "exceeds the maximum number of tokens",
    "input tokens exceed",
    "exceed_context_size",
    "context_window_exceeded",
    "exceeds the context",
    "prompt too long",
    "maximum prompt length",
    "too many input tokens",
    "input length exceeds",
)
TOO_LARGE_PHRASES = ("request entity too large", "payload too large", "request too large for model")
# A 413 that survives only in the text: proxies that answer "error code: 413" in a
# body or a stream event, after the HTTP status was lost or replaced by a 200/5xx.
TOO_LARGE_CODE = re.compile(r"\b(?:error|status)[ _-]?code\W{0,3}413\b|\bhttp(?:/[\d.]+)? 413\b", re.IGNORECASE)
# An SDK that refused to send a request without a key ("Missing credentials. Please pass
# an `api_key`...", "The api_key client option must be set"); litellm reports it as a 500.
MISSING_KEY_PHRASES = (
    "missing credentials",
    "api_key client option must be set",
    "missing api key",
    "api key is missing",
    "no api key provided",
)
# litellm's own guard against a model stuck in a loop (streaming_handler.raise_on_model_repetition):
# it raises an InternalServerError although the server reported nothing.
REPETITION_PHRASES = ("repeating the same chunk",)
REFUSED_PHRASES = ("connection refused", "connect call failed", "errno 111")
_CONNECT_HOST = re.compile(r"cannot connect to host (\S+?):(\d+)(?:\s|$)", re.IGNORECASE)
_CONNECT_CALL = re.compile(r"connect call failed \('([^']+)', (\d+)", re.IGNORECASE)
CONNECTION_PHRASES = (
    "connection error",
    "connection reset",
    "connection refused",
    "connection aborted",
    "disconnected",
    "payload is not completed",
    "incomplete chunked read",
    "peer closed connection",
    "remote end closed",
    "remoteprotocolerror",
    "broken pipe",
    "network is unreachable",
    "name or service not known",
    "temporary failure in name resolution",
)
TIMEOUT_PHRASES = ("timed out", "request timeout", "timeout error", "timeout on reading data")

TIMEOUT_CLASSES = {
    "Timeout",
    "APITimeoutError",
    "TimeoutError",
    "ReadTimeout",
    "ConnectTimeout",
    "PoolTimeout",
    "WriteTimeout",
    "ServerTimeoutError",
}
CONNECTION_CLASSES = {
    "APIConnectionError",
    "ConnectError",
    "ReadError",
    "WriteError",
    "RemoteProtocolError",
    "ConnectionError",
    "ClientConnectionError",
    "ClientPayloadError",
    "ServerDisconnectedError",
    "ClientOSError",
    "IncompleteRead",
}
SERVER_CLASSES = {"InternalServerError", "ServiceUnavailableError", "BadGatewayError"}

# "... maximum context length is 32768 tokens", "context window of 8192", llama.cpp's
# "available context size (4096 tokens)", Anthropic's "210000 tokens > 200000 maximum", ...
_LIMIT_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"maximum context length (?:is|of) (\d[\d,]*)",
        r"context window (?:is|of) (\d[\d,]*)",
        r"available context size \((\d[\d,]*)",
        r"context (?:length|size|window)(?: limit)?(?: is| of)?:? \(?(\d[\d,]*)",
        r"maximum model length (?:is|of) (\d[\d,]*)",
        r"max_model_len[^\d]{0,20}(\d[\d,]*)",
        r"maximum input length (?:is|of) (\d[\d,]*)",
        r"maximum number of tokens allowed \((\d[\d,]*)\)",
        r"\d[\d,]* tokens > (\d[\d,]*) maximum",
        r"n_ctx[\"']?\s*[:=]\s*(\d+)",
    )
)
_MIN_PLAUSIBLE_LIMIT = 256


def chain(exc: BaseException, depth: int = 8) -> list[BaseException]:
    """`exc` and the exceptions it was raised from (`__cause__`, else `__context__`), newest first."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(out) < depth and all(current is not seen for seen in out):
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def refused_address(exc: BaseException) -> str | None:
    """`host:port` of a refused connection as the network library named it, "" when it named
    none, None when the connection was not refused.

    aiohttp says "Cannot connect to host localhost:11434 ssl:... [Connect call
    failed ('127.0.0.1', 11434)]"; the OpenAI SDK hides that under "Connection
    error." but keeps it in the exception chain, ending in ConnectionRefusedError.
    """
    links = chain(exc)
    text = " ".join(str(link) for link in links)
    refused = any(isinstance(link, ConnectionRefusedError) for link in links) or any(
        phrase in text.lower() for phrase in REFUSED_PHRASES
    )
    if not refused:
        return None
    named = _CONNECT_HOST.search(text) or _CONNECT_CALL.search(text)
    if named is None:
        return ""
    return f"{named.group(1)}:{named.group(2)}"


def unwrap(exc: BaseException) -> BaseException:
    """litellm's MidStreamFallbackError wraps the real failure; classify that one."""
    inner = getattr(exc, "original_exception", None)
    if isinstance(inner, BaseException) and inner is not exc:
        return inner
    return exc


def class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of a provider exception, if it carries one."""
    for candidate in (getattr(exc, "status_code", None), getattr(getattr(exc, "response", None), "status_code", None)):
        try:
            if candidate is not None:
                return int(candidate)
        except (TypeError, ValueError):
            continue
    return None


def _body(exc: BaseException) -> dict[str, Any]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        return {**body, **inner} if isinstance(inner, dict) else body
    return {}


def search_text(exc: BaseException) -> str:
    """Lower-cased message plus the error body's code and type, for phrase matching."""
    body = _body(exc)
    parts = [
        str(exc),
        str(getattr(exc, "message", "") or ""),
        str(body.get("code") or ""),
        str(body.get("type") or ""),
        str(body.get("message") or ""),
    ]
    return " ".join(parts).lower()


def body_limit(exc: BaseException) -> int | None:
    body = _body(exc)
    for key in ("n_ctx", "context_window", "max_context_length"):
        try:
            value = int(body.get(key) or 0)
        except (TypeError, ValueError):
            continue
        if value >= _MIN_PLAUSIBLE_LIMIT:
            return value
    return None


def parse_context_limit(text: str) -> int | None:
    """The window size stated in an overflow message, e.g. 32768 from "maximum context length is 32768 tokens"."""
    for pattern in _LIMIT_PATTERNS:
        match = pattern.search(text)
        if match:
            value = int(match.group(1).replace(",", ""))
            if value >= _MIN_PLAUSIBLE_LIMIT:
                return value
    return None


def retry_after_seconds(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (Retry-After / retry-after-ms headers), if it said."""
    for source in (exc, getattr(exc, "original_exception", None)):
        if source is None:
            continue
        for headers in (
            getattr(source, "litellm_response_headers", None),
            getattr(getattr(source, "response", None), "headers", None),
            getattr(source, "headers", None),
        ):
            value = _retry_after_from(headers)
            if value is not None:
                return value
    return None


def _retry_after_from(headers: Any) -> float | None:
    if not headers:
        return None
    try:
        get = headers.get
        ms = get("retry-after-ms") or get("Retry-After-Ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        raw = get("retry-after") or get("Retry-After")
    except Exception:
        return None
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except (TypeError, ValueError):
        pass
    try:  # an HTTP date
        import time

        return max(0.0, parsedate_to_datetime(str(raw)).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def provider_of(exc: BaseException, model: str | None) -> str | None:
    provider = getattr(exc, "llm_provider", None)
    if isinstance(provider, str) and provider:
        return provider
    if model and "/" in model:
        return model.split("/", 1)[0]
    if model and model.startswith(("gpt-", "o1", "o3", "o4")):
        return "openai"
    if model and model.startswith("claude"):
        return "anthropic"
    return None


def model_label(exc: BaseException, model: str | None) -> str:
    if model:
        return model
    name = getattr(exc, "model", None)
    provider = getattr(exc, "llm_provider", None)
    if isinstance(name, str) and name:
        if isinstance(provider, str) and provider and not name.startswith(provider + "/"):
            return f"{provider}/{name}"
        return name
    return "the model"


def exc_api_base(exc: BaseException) -> str | None:
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    text = str(url) if url is not None else ""
    # litellm fills `request` with a placeholder URL; only a real one helps the user
    if not text or "api.openai.com" in text or "litellm.ai" in text or "vertex-ai" in text:
        return None
    return text


def url_address(url: str | None) -> str | None:
    """`host:port` of an endpoint URL, the port filled in from the scheme when the URL omits it."""
    if not url:
        return None
    parts = urlsplit(url if "://" in url else f"http://{url}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    return f"{parts.hostname}:{port}" if parts.hostname else None
