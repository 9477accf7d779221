"""The provider errors the agent acts on, each with one sentence for the user.

litellm and llama.cpp raise dozens of exception types; the agent only needs to
know which of these things happened, and the user only needs one clear
sentence, never a traceback. `brief` is the few words a status line shows
while a retry waits ("retrying (1/3) in 2 s: rate limited").
"""

from __future__ import annotations


class LLMError(Exception):
    """Base class; `str(err)` is the sentence shown to the user."""

    status_code: int | None = None
    brief: str = "provider error"

    def __init__(self, message: str, *, brief: str | None = None) -> None:
        super().__init__(message)
        if brief:
            self.brief = brief


class ContextOverflow(LLMError):
    """The prompt is larger than the model accepts; `limit` is the real window when the provider said it."""

    brief = "context overflow"

    def __init__(self, message: str, limit: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit


class AuthError(LLMError):
    """Bad or missing key, no permission, or no quota left: retrying cannot help."""

    status_code = 401
    brief = "authentication failed"


class RateLimited(LLMError):
    """Too many requests; retried with backoff before it reaches the agent."""

    status_code = 429
    brief = "rate limited"


class TransientError(LLMError):
    """Timeouts, dropped connections, 5xx: worth a bounded retry."""

    brief = "temporary provider error"


class IncompleteReply(TransientError):
    """The stream ended before the provider said the reply was done, or carried nothing at all.

    Retried like a dropped connection while no text has been shown; after
    that the partial reply is kept, marked incomplete, and the turn fails.
    """

    brief = "reply cut off"


class Unreachable(LLMError):
    """Nothing accepts connections at the endpoint: the server is not running or the address is wrong.

    Not retried: a few seconds of backoff do not start a server, and the user
    should read the address at once rather than after the retries.
    """

    brief = "nothing listening"


class FatalError(LLMError):
    """Anything else the provider refused (bad request, unknown model)."""
