"""The provider errors the agent acts on, each with one sentence for the user.

litellm and llama.cpp raise dozens of exception types; the agent only needs to
know which of these five things happened, and the user only needs one clear
sentence, never a traceback.
"""

from __future__ import annotations


class LLMError(Exception):
    """Base class; `str(err)` is the sentence shown to the user."""

    status_code: int | None = None


class ContextOverflow(LLMError):
    """The prompt is larger than the model accepts; `limit` is the real window when the provider said it."""

    def __init__(self, message: str, limit: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit


class AuthError(LLMError):
    """Bad or missing key, no permission, or no quota left: retrying cannot help."""

    status_code = 401


class RateLimited(LLMError):
    """Too many requests; retried with backoff before it reaches the agent."""

    status_code = 429


class TransientError(LLMError):
    """Timeouts, dropped connections, 5xx: worth a bounded retry."""


class FatalError(LLMError):
    """Anything else the provider refused (bad request, unknown model)."""
