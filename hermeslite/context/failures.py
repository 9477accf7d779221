"""Sorting summarizer failures into "stop and keep everything" and "fall back".

Only errors that no retry can fix and that say the user's account cannot make
calls (bad key, no permission, no quota) abort a compaction: removing turns
then would lose them for nothing. Everything else (timeouts, dropped
connections, rate limits, 5xx, garbage replies) falls back to the
deterministic checkpoint, which keeps the session moving.
"""

from __future__ import annotations

import re

from .clip import clip_line

# Read by the LLM layer's error classifier too (llm/classify.py): one list of what
# "the account cannot make calls" looks like, kept here because this module is pure.
AUTH_CLASSES = {"AuthenticationError", "PermissionDeniedError"}
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

ABORT_STATUS = {401, 403}
ABORT_CLASS_NAMES = AUTH_CLASSES | {"PermissionError", "AuthError"}
ABORT_TEXT = re.compile(
    r"insufficient[_ ]quota|out of (?:extra )?(?:usage|credits)|credit balance"
    r"|no api key|api key (?:not found|missing|is invalid)"
    r"|invalid api key|incorrect api key|invalid x-api-key|unauthori[sz]ed|permission denied|forbidden",
    re.IGNORECASE,
)


def _status(exc: BaseException) -> int | None:
    for attr in ("status_code", "status", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def should_abort(exc: BaseException) -> bool:
    """True for auth, permission and quota errors; False for everything retryable or local."""
    if type(exc).__name__ in ABORT_CLASS_NAMES or _status(exc) in ABORT_STATUS:
        return True
    text = str(exc)[:2_000]
    return any(phrase in text.lower() for phrase in QUOTA_PHRASES) or bool(ABORT_TEXT.search(text))


def describe(exc: BaseException) -> str:
    """One short line for the user: the error's class and the start of its message."""
    text = clip_line(str(exc), 200)
    name = type(exc).__name__
    return f"{name}: {text}" if text else name
