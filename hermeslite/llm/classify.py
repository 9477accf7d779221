"""Turn any provider exception into one of the five errors the agent acts on.

litellm maps provider failures onto dozens of exception classes whose `str()`
stacks prefixes ("litellm.BadRequestError: ContextWindowExceededError:
OpenAIException - ...") and sometimes whole JSON bodies. `classify` decides
by class name (through the MRO, so litellm need not be imported here), status
code and message phrases (the tables and readers are in `provider_signals`),
and writes one sentence for the user that names the model and says what to do.

Order matters:
0. a 200 whose body is a web page (litellm: "invalid response ... Received: '<") -> FatalError
   naming the URL: a misconfigured api_base, not a fault that a retry fixes;
1. ContextWindowExceededError, HTTP 413, "request entity too large" or an
   "error code: 413" left only in the text -> ContextOverflow
   (ContextWindowExceededError subclasses BadRequestError, so it is checked first);
2. 401/402/403, authentication/permission classes, quota/billing phrases, or an
   SDK's "missing credentials" (which litellm reports as a 500) -> AuthError
   (a 429 "insufficient_quota" is an AuthError: waiting does not refill credit);
3. an overflow phrase in any other non-429 error -> ContextOverflow;
4. litellm's repetition guard (a 500 no server sent) -> FatalError that says so;
5. 429 / RateLimitError -> RateLimited;
6. timeouts -> TransientError;
7. a refused connection -> Unreachable, naming the host:port nothing listens on;
8. other connection failures, 5xx -> TransientError;
9. anything else -> FatalError.
"""

from __future__ import annotations

import asyncio
import json
import re

from hermeslite.context.clip import clip_end, clip_line
from hermeslite.context.failures import AUTH_CLASSES, QUOTA_PHRASES
from hermeslite.context.redact import redact_secrets

from .errors import AuthError, ContextOverflow, FatalError, LLMError, RateLimited, TransientError, Unreachable
from .provider_signals import (
    CONNECTION_CLASSES,
    CONNECTION_PHRASES,
    MISSING_KEY_PHRASES,
    OVERFLOW_PHRASES,
    REPETITION_PHRASES,
    SERVER_CLASSES,
    TIMEOUT_CLASSES,
    TIMEOUT_PHRASES,
    TOO_LARGE_CODE,
    TOO_LARGE_PHRASES,
    body_limit,
    class_names,
    exc_api_base,
    model_label,
    parse_context_limit,
    provider_of,
    refused_address,
    retry_after_seconds,
    search_text,
    status_of,
    unwrap,
    url_address,
)

MAX_MESSAGE_CHARS = 300
# litellm's words for a 200 whose body is not JSON, and the body starting with `<`: a web page.
HTML_BODY = re.compile(r"invalid response from llm endpoint\. received: '\s*<", re.IGNORECASE)
_MAX_DETAIL_CHARS = 180

# The usual environment variable of a provider's key, for the hint in an AuthError.
_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "azure": "AZURE_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
    "deepinfra": "DEEPINFRA_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
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
    inner = unwrap(exc)
    err = _classify(inner, exc, model, api_base, api_key_env)
    err.__cause__ = exc
    status = status_of(inner)
    if status is not None:
        err.status_code = status
    return err


def _classify(
    exc: BaseException, outer: BaseException, model: str | None, api_base: str | None, api_key_env: str | None
) -> LLMError:
    names = class_names(exc) | class_names(outer)
    status = status_of(exc)
    text = search_text(exc)
    label = model_label(exc, model)
    detail = first_line(exc)

    if HTML_BODY.search(str(exc)):  # before the phrase tables: a login page may say "authentication"
        return html_page(api_base or exc_api_base(exc), label)
    if "ContextWindowExceededError" in names:
        return _overflow(label, text, exc)
    if status == 413 or _has(text, TOO_LARGE_PHRASES) or TOO_LARGE_CODE.search(text):
        return _overflow(label, text, exc, too_large=True)
    if (
        names & AUTH_CLASSES
        or status in (401, 402, 403)
        or _has(text, QUOTA_PHRASES)
        or _has(text, MISSING_KEY_PHRASES)
    ):
        return _auth(label, status, text, detail, provider_of(exc, model), api_key_env)
    if status != 429 and "RateLimitError" not in names and _has(text, OVERFLOW_PHRASES):
        return _overflow(label, text, exc)
    if _has(text, REPETITION_PHRASES):
        return FatalError(
            _cap(
                f"{label} kept sending the same text over and over, so litellm's repetition "
                "guard stopped the reply (the server reported no error); try again or rephrase."
            ),
            brief="model repeating itself",
        )
    if status == 429 or "RateLimitError" in names:
        wait = retry_after_seconds(outer)
        lead = f"{label} is rate limiting requests (429)"
        hint = f"the provider asks to wait {wait:g} s" if wait else "wait a moment and try again"
        return RateLimited(_sentence(lead, detail, hint))
    if names & TIMEOUT_CLASSES or isinstance(exc, asyncio.TimeoutError) or _has(detail.lower(), TIMEOUT_PHRASES):
        return TransientError(
            _cap(
                f"{label} did not answer in time (request timed out). Try again, or raise "
                "model.timeout (seconds of silence allowed) for a slow model."
            ),
            brief="timed out",
        )
    return _connection(exc, names, status, text, label, detail, provider_of(exc, model), api_base)


def html_page(url: str | None, label: str) -> FatalError:
    """The error for an endpoint that answered with a web page: the address is wrong, so no retry."""
    where = f"The server at {url}" if url else f"The server for {label}"
    return FatalError(
        _cap(f"{where} answered with an HTML page, not the API: check model.api_base."), brief="HTML page, not the API"
    )


def _connection(
    exc: BaseException,
    names: set[str],
    status: int | None,
    text: str,
    label: str,
    detail: str,
    provider: str | None,
    api_base: str | None,
) -> LLMError:
    """Connection failures and server errors; anything else is fatal."""
    mid_stream = "MidStreamFallbackError" in names
    refused = refused_address(exc)
    where = (url_address(api_base) or refused) if refused is not None else None
    if where:
        hint = (
            " (is Ollama running?)"
            if provider in ("ollama", "ollama_chat")
            else ("; check that the server is running and model.api_base is right")
        )
        return Unreachable(_cap(f"{label}: nothing is listening on {where}{hint}."))
    server_side = status is None or status >= 500
    if (
        names & CONNECTION_CLASSES
        or isinstance(exc, (ConnectionError, EOFError))
        or (server_side and _has(text, CONNECTION_PHRASES))
    ):
        if mid_stream or _has(
            text,
            ("payload is not completed", "incomplete chunked read", "peer closed", "disconnected", "connection reset"),
        ):
            return TransientError(
                _sentence(f"The connection to {label} dropped before the reply was complete", detail),
                brief="connection dropped",
            )
        base = api_base or exc_api_base(exc)
        if base:
            return TransientError(
                _cap(
                    f"Could not connect to {base} for {label}; check that the server "
                    "is running and model.api_base is right."
                ),
                brief="could not connect",
            )
        return TransientError(
            _sentence(f"Could not reach the provider of {label}", detail, "check the network connection"),
            brief="could not reach the provider",
        )
    if names & SERVER_CLASSES or (status is not None and 500 <= status < 600) or mid_stream:
        code = f" ({status})" if status else ""
        return TransientError(
            _sentence(f"{label} had a server error{code}", detail, "try again in a moment"), brief=f"server error{code}"
        )
    if "NotFoundError" in names or status == 404:
        return FatalError(_sentence(f"The provider does not know the model {label} (404)", detail, "check model.name"))
    code = f" ({status})" if status else ""
    return FatalError(_sentence(f"{label} refused the request{code}", detail))


def _overflow(label: str, text: str, exc: BaseException, *, too_large: bool = False) -> ContextOverflow:
    limit = parse_context_limit(text)
    if limit is None:
        limit = body_limit(exc)
    if limit:
        msg = f"The conversation is too long for {label}, whose context window is {limit:,} tokens."
    elif too_large:
        msg = f"The request is too large for {label} (413 request entity too large)."
    else:
        msg = f"The conversation is too long for {label}'s context window."
    return ContextOverflow(_cap(msg), limit=limit)


def _auth(
    label: str, status: int | None, text: str, detail: str, provider: str | None, api_key_env: str | None
) -> AuthError:
    if _has(text, QUOTA_PHRASES) or status == 402:
        code = f" ({status})" if status else ""
        err = AuthError(
            _sentence(
                f"The provider has no quota or credit left for {label}{code}",
                detail,
                "check the plan and billing with the provider",
            )
        )
    elif status == 403 or "permission" in text:
        err = AuthError(
            _sentence(
                f"The provider denied access to {label} (403)", detail, "check that the API key may use this model"
            )
        )
    else:
        env = api_key_env or _KEY_ENV.get(provider or "", f"{(provider or 'provider').upper()}_API_KEY")
        hint = f"Set {env}." if api_key_env else f"Set {env} or model.api_key_env."
        if _has(text, MISSING_KEY_PHRASES):
            return AuthError(_cap(f"No API key for {label}: {env} is not set. {hint}"), brief="no API key")
        err = AuthError(_cap(f"The provider rejected the API key for {label} ({status or 401}). {hint}"))
    if status is not None:
        err.status_code = status
    return err


# -- wording --------------------------------------------------------------

_PREFIX = re.compile(
    r"^\s*(?:litellm\.)?(?:[A-Z][A-Za-z]*(?:Error|Exception|Timeout)|APITimeoutError|Error_str|Error)"
    r"\s*(?::|-)\s*"
)
_JUNK_LINE = re.compile(r"^(traceback|file \"|give feedback|litellm\.info|get help|during handling|\^)", re.I)
_TAILS = (
    " LiteLLM Retried:",
    ", LiteLLM Max Retries:",
    " Original exception:",
    " Received Model Group=",
    " Available Model Group Fallbacks=",
    "\nTraceback",
)


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
    return clip_end(redact_secrets(line.strip()), _MAX_DETAIL_CHARS)


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
    return clip_line(text, MAX_MESSAGE_CHARS)


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in text for phrase in phrases)
