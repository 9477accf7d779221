"""Turn any provider exception into one of the five errors the agent acts on.

litellm maps provider failures onto dozens of exception classes whose `str()`
stacks prefixes ("litellm.BadRequestError: ContextWindowExceededError:
OpenAIException - ...") and sometimes whole JSON bodies. `classify` decides
by class name (through the MRO, so litellm need not be imported here), status
code and message phrases, and writes one sentence for the user that names the
model and says what to do.

Order matters:
1. ContextWindowExceededError, HTTP 413 or "request entity too large" -> ContextOverflow
   (ContextWindowExceededError subclasses BadRequestError, so it is checked first);
2. 401/402/403, authentication/permission classes, or quota/billing phrases -> AuthError
   (a 429 "insufficient_quota" is an AuthError: waiting does not refill credit);
3. an overflow phrase in any other non-429 error -> ContextOverflow;
4. 429 / RateLimitError -> RateLimited;
5. timeouts, dropped connections, 5xx -> TransientError;
6. anything else -> FatalError.
"""

from __future__ import annotations

import asyncio
import json
import re
from email.utils import parsedate_to_datetime
from typing import Any

from hermeslite.context.redact import redact_secrets

from .errors import AuthError, ContextOverflow, FatalError, LLMError, RateLimited, TransientError

MAX_MESSAGE_CHARS = 300
_MAX_DETAIL_CHARS = 180

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
)
_TOO_LARGE_PHRASES = ("request entity too large", "payload too large", "request too large for model")
QUOTA_PHRASES = (
    "insufficient_quota",
    "exceeded your current quota",
    "quota exceeded",
    "billing",
    "insufficient credit",
    "insufficient balance",
    "credit balance is too low",
    "payment required",
)
_CONNECTION_PHRASES = (
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
_TIMEOUT_PHRASES = ("timed out", "request timeout", "timeout error")

_AUTH_CLASSES = {"AuthenticationError", "PermissionDeniedError"}
_TIMEOUT_CLASSES = {"Timeout", "APITimeoutError", "TimeoutError", "ReadTimeout", "ConnectTimeout",
                    "PoolTimeout", "WriteTimeout", "ServerTimeoutError"}
_CONNECTION_CLASSES = {"APIConnectionError", "ConnectError", "ReadError", "WriteError", "RemoteProtocolError",
                       "ConnectionError", "ClientConnectionError", "ClientPayloadError",
                       "ServerDisconnectedError", "ClientOSError", "IncompleteRead"}
_SERVER_CLASSES = {"InternalServerError", "ServiceUnavailableError", "BadGatewayError"}

# "... maximum context length is 32768 tokens", "context window of 8192", llama.cpp's
# "available context size (4096 tokens)", Anthropic's "210000 tokens > 200000 maximum", ...
_LIMIT_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in (
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
))
_MIN_PLAUSIBLE_LIMIT = 256

# The usual environment variable of a provider's key, for the hint in an AuthError.
_KEY_ENV = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "openrouter": "OPENROUTER_API_KEY",
    "gemini": "GEMINI_API_KEY", "groq": "GROQ_API_KEY", "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY", "xai": "XAI_API_KEY", "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY", "cohere": "COHERE_API_KEY", "azure": "AZURE_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY", "deepinfra": "DEEPINFRA_API_KEY", "cerebras": "CEREBRAS_API_KEY",
}


def classify(
    exc: BaseException,
    *,
    model: str | None = None,
    api_base: str | None = None,
    api_key_env: str | None = None,
) -> LLMError:
    """The `LLMError` for `exc`, with a one-sentence message for the user.

    `model` (the configured litellm string), `api_base` and `api_key_env`
    only improve the message; without them the exception's own attributes
    are used. An `LLMError` is returned unchanged. The result's `__cause__`
    is `exc`, so logs keep the original.
    """
    if isinstance(exc, LLMError):
        return exc
    inner = _unwrap(exc)
    err = _classify(inner, exc, model, api_base, api_key_env)
    err.__cause__ = exc
    status = status_of(inner)
    if status is not None:
        err.status_code = status
    return err


def _classify(exc: BaseException, outer: BaseException, model: str | None, api_base: str | None,
              api_key_env: str | None) -> LLMError:
    names = _class_names(exc) | _class_names(outer)
    status = status_of(exc)
    text = _search_text(exc)
    label = _model_label(exc, model)
    detail = first_line(exc)

    if "ContextWindowExceededError" in names:
        return _overflow(label, text, exc)
    if status == 413 or _has(text, _TOO_LARGE_PHRASES):
        return _overflow(label, text, exc, too_large=True)
    if names & _AUTH_CLASSES or status in (401, 402, 403) or _has(text, QUOTA_PHRASES):
        return _auth(label, status, text, detail, _provider(exc, model), api_key_env)
    if status != 429 and "RateLimitError" not in names and _has(text, OVERFLOW_PHRASES):
        return _overflow(label, text, exc)
    if status == 429 or "RateLimitError" in names:
        wait = retry_after_seconds(outer)
        lead = f"{label} is rate limiting requests (429)"
        hint = f"the provider asks to wait {wait:g} s" if wait else "wait a moment and try again"
        return RateLimited(_sentence(lead, detail, hint))
    if names & _TIMEOUT_CLASSES or isinstance(exc, asyncio.TimeoutError) or _has(detail.lower(), _TIMEOUT_PHRASES):
        return TransientError(_cap(f"{label} did not answer in time (request timed out). "
                                   "Try again, or raise the timeout for slow local models."))
    mid_stream = "MidStreamFallbackError" in names
    server_side = status is None or status >= 500
    if (names & _CONNECTION_CLASSES or isinstance(exc, (ConnectionError, EOFError))
            or (server_side and _has(text, _CONNECTION_PHRASES))):
        if mid_stream or _has(text, ("payload is not completed", "incomplete chunked read", "peer closed",
                                     "disconnected", "connection reset")):
            return TransientError(_sentence(f"The connection to {label} dropped before the reply was complete",
                                            detail))
        where = api_base or _exc_api_base(exc)
        if where:
            return TransientError(_cap(f"Could not connect to {where} for {label}; check that the server "
                                       "is running and model.api_base is right."))
        return TransientError(_sentence(f"Could not reach the provider of {label}", detail,
                                        "check the network connection"))
    if names & _SERVER_CLASSES or (status is not None and 500 <= status < 600) or mid_stream:
        code = f" ({status})" if status else ""
        return TransientError(_sentence(f"{label} had a server error{code}", detail, "try again in a moment"))
    if "NotFoundError" in names or status == 404:
        return FatalError(_sentence(f"The provider does not know the model {label} (404)", detail,
                                    "check model.name"))
    code = f" ({status})" if status else ""
    return FatalError(_sentence(f"{label} refused the request{code}", detail))


def _overflow(label: str, text: str, exc: BaseException, *, too_large: bool = False) -> ContextOverflow:
    limit = parse_context_limit(text)
    if limit is None:
        limit = _body_limit(exc)
    if limit:
        msg = f"The conversation is too long for {label}, whose context window is {limit:,} tokens."
    elif too_large:
        msg = f"The request is too large for {label} (413 request entity too large)."
    else:
        msg = f"The conversation is too long for {label}'s context window."
    return ContextOverflow(_cap(msg), limit=limit)


def _auth(label: str, status: int | None, text: str, detail: str, provider: str | None,
          api_key_env: str | None) -> AuthError:
    if _has(text, QUOTA_PHRASES) or status == 402:
        code = f" ({status})" if status else ""
        err = AuthError(_sentence(f"The provider has no quota or credit left for {label}{code}", detail,
                                  "check the plan and billing with the provider"))
    elif status == 403 or "permission" in text:
        err = AuthError(_sentence(f"The provider denied access to {label} (403)", detail,
                                  "check that the API key may use this model"))
    else:
        env = api_key_env or _KEY_ENV.get(provider or "", f"{(provider or 'provider').upper()}_API_KEY")
        hint = f"Set {env}." if api_key_env else f"Set {env} or model.api_key_env."
        err = AuthError(_cap(f"The provider rejected the API key for {label} ({status or 401}). {hint}"))
    if status is not None:
        err.status_code = status
    return err


# -- reading exceptions ---------------------------------------------------


def _unwrap(exc: BaseException) -> BaseException:
    """litellm's MidStreamFallbackError wraps the real failure; classify that one."""
    inner = getattr(exc, "original_exception", None)
    if isinstance(inner, BaseException) and inner is not exc:
        return inner
    return exc


def _class_names(exc: BaseException) -> set[str]:
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


def _search_text(exc: BaseException) -> str:
    """Lower-cased message plus the error body's code and type, for phrase matching."""
    body = _body(exc)
    parts = [str(exc), str(getattr(exc, "message", "") or ""), str(body.get("code") or ""),
             str(body.get("type") or ""), str(body.get("message") or "")]
    return " ".join(parts).lower()


def _body_limit(exc: BaseException) -> int | None:
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
        for headers in (getattr(source, "litellm_response_headers", None),
                        getattr(getattr(source, "response", None), "headers", None),
                        getattr(source, "headers", None)):
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


def _provider(exc: BaseException, model: str | None) -> str | None:
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


def _model_label(exc: BaseException, model: str | None) -> str:
    if model:
        return model
    name = getattr(exc, "model", None)
    provider = getattr(exc, "llm_provider", None)
    if isinstance(name, str) and name:
        if isinstance(provider, str) and provider and not name.startswith(provider + "/"):
            return f"{provider}/{name}"
        return name
    return "the model"


def _exc_api_base(exc: BaseException) -> str | None:
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    text = str(url) if url is not None else ""
    # litellm fills `request` with a placeholder URL; only a real one helps the user
    if not text or "api.openai.com" in text or "litellm.ai" in text or "vertex-ai" in text:
        return None
    return text


# -- wording --------------------------------------------------------------

_PREFIX = re.compile(
    r"^\s*(?:litellm\.)?(?:[A-Z][A-Za-z]*(?:Error|Exception|Timeout)|APITimeoutError|Error_str|Error)"
    r"\s*(?::|-)\s*"
)
_JUNK_LINE = re.compile(r"^(traceback|file \"|give feedback|litellm\.info|get help|during handling|\^)", re.I)
_TAILS = (" LiteLLM Retried:", ", LiteLLM Max Retries:", " Original exception:", " Received Model Group=",
          " Available Model Group Fallbacks=", "\nTraceback")


def first_line(exc: BaseException) -> str:
    """The provider's own explanation: first meaningful line, litellm prefixes and JSON wrappers removed."""
    text = str(exc) or ""
    for tail in _TAILS:
        text = text.split(tail, 1)[0]
    line = next((ln.strip() for ln in text.splitlines() if ln.strip() and not _JUNK_LINE.match(ln.strip())), "")
    for _ in range(6):  # "litellm.X: litellm.Y: Z: OpenAIException - msg"
        stripped = _PREFIX.sub("", line, count=1)
        if stripped == line:
            break
        line = stripped
    line = _from_json(line)
    if not line:
        line = type(exc).__name__
    line = redact_secrets(line.strip())
    if len(line) > _MAX_DETAIL_CHARS:
        line = line[: _MAX_DETAIL_CHARS - 1].rstrip() + "…"
    return line


def _from_json(line: str) -> str:
    """`{"error": {"message": "..."}}` -> its message; anything else unchanged."""
    start = line.find("{")
    if start < 0:
        return line
    try:
        data = json.loads(line[start:])
    except ValueError:
        return line
    if isinstance(data, dict):
        inner = data.get("error", data)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(message, str) and message.strip():
            return (line[:start].strip(" :-") + ": " + message.strip()).lstrip(": ")
    return line


def _sentence(lead: str, detail: str, hint: str | None = None) -> str:
    """`lead: detail; hint.` as one sentence, capped."""
    detail = detail.rstrip(" .")
    body = f"{lead}: {detail}" if detail and detail.lower() not in lead.lower() else lead
    if hint:
        body += f"; {hint}"
    return _cap(body.rstrip(".") + ".")


def _cap(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1].rstrip() + "…"


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in text for phrase in phrases)
