"""Which failed calls are tried again, how long to wait first, and when to stop.

Only rate limits and transient failures are retried: an auth error, a bad
request or a server nobody runs gives the same answer every time. The wait
doubles from `base_delay` (or is what the provider asked for in Retry-After),
at most 30 s. Two bounds keep a stalled provider from holding the user for
long: `max_retries` (agent.max_retries), and a time budget of twice
`model.timeout` since the first attempt, after which no retry starts (an
attempt that is already receiving a reply is never cut short by it).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LLMError, RateLimited, TransientError
from .provider_signals import retry_after_seconds

MAX_BACKOFF_SECONDS = 30.0
BUDGET_TIMEOUTS = 2.0  # no retry starts once this many model.timeout periods have passed


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int
    base_delay: float
    timeout: float  # model.timeout, seconds

    @property
    def budget(self) -> float:
        """Seconds after the first attempt during which a retry may still start."""
        return BUDGET_TIMEOUTS * self.timeout

    def next_delay(self, err: LLMError, retry: int, elapsed: float) -> float | None:
        """Seconds to wait before retry number `retry + 1`, or None when `err` ends the call."""
        if not isinstance(err, (RateLimited, TransientError)) or retry >= self.max_retries:
            return None
        asked = retry_after_seconds(err.__cause__) if err.__cause__ is not None else None
        delay = asked if asked is not None else self.base_delay * (2**retry)
        delay = max(0.0, min(delay, MAX_BACKOFF_SECONDS))
        if elapsed + delay >= self.budget:
            return None
        return delay
