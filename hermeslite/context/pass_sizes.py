"""The figures a compression pass is measured in, fixed when the pass starts.

The threshold is in the provider's tokens and the engine counts in estimates;
the agent tells the compressor the tokens every request carries besides the
messages (tool schemas) and its calibration (provider tokens per estimated
token). Planning, the preview and the execution of a pass all convert between
the two with the same snapshot, so "under the threshold" means the whole
request is, by the meter's count.
"""

from __future__ import annotations

from dataclasses import dataclass

from .boundaries import latest_user_index
from .budgets import AFTER_COMPACTION, Budgets, Fixed, plan_budgets
from .messages import Message


@dataclass(frozen=True)
class PassSizes:
    """The window, the threshold, the request's overhead and the calibration, for one pass."""

    context_length: int
    threshold_tokens: int
    overhead_tokens: int  # tokens every request carries besides the messages (tool schemas)
    scale: float  # provider tokens per estimated token

    @property
    def target_tokens(self) -> int:
        """What a request may carry right after a compaction."""
        return int(self.threshold_tokens * AFTER_COMPACTION)

    def request_tokens(self, messages_estimate: int) -> int:
        """The whole request (tool schemas included) for messages of `messages_estimate` estimated
        tokens, in the provider's tokens: the meter's count after a rewrite."""
        return round((messages_estimate + self.overhead_tokens) * self.scale)

    def estimate_units(self, provider_tokens: int) -> int:
        return int(provider_tokens / self.scale)

    def budgets(self, working: list[Message], tokens: list[int], target_ratio: float) -> Budgets:
        """Budgets for a pass, after the tool schemas, the system prompt and the latest user message."""
        user_at = latest_user_index(working)
        fixed = Fixed(
            overhead=self.overhead_tokens,
            system=tokens[0] if working and working[0].get("role") == "system" else 0,
            user=tokens[user_at] if user_at is not None else 0,
        )
        return plan_budgets(self.threshold_tokens, target_ratio, fixed, self.scale)
