"""Where compaction starts, and why there, as data the front ends can show.

A fixed fraction of the window serves neither end well. In a small window the
tool schemas and system prompt eat much of half the window, so the session
compacts on almost every turn; in a 1M-token window, waiting until 500K makes
every turn slow and expensive. So the fraction rises to 0.75 below 512K
tokens (unless the user chose one), a per-model fraction can be configured,
and an absolute cap keeps huge windows from waiting too long. Users cannot
trust a threshold they cannot explain, so the result says which rule won.
"""

from __future__ import annotations

from dataclasses import dataclass

from .fieldspec import AUTO
from .settings import CompressionConfig

SMALL_WINDOW = 512_000
SMALL_WINDOW_FRACTION = 0.75
LARGE_WINDOW_FRACTION = 0.50


@dataclass(frozen=True)
class Threshold:
    """The compaction threshold in force: tokens, the fraction behind it, and the rule that chose it."""

    tokens: int
    fraction: float
    context_length: int
    source: str  # the rule that chose `fraction`, e.g. "compression.model_thresholds['claude']"
    capped_at: int | None  # compression.threshold_tokens, when it lowered the threshold

    def reason(self) -> str:
        """Why the threshold is where it is, e.g. "auto: windows under 512K compact at 75%"."""
        if self.capped_at is not None:
            return (
                f"capped by compression.threshold_tokens; {self.fraction:.0%} ({self.source}) "
                f"would be {int(self.context_length * self.fraction):,}"
            )
        return self.source

    def describe(self) -> str:
        """One line, e.g. "6,144 tokens: 75% of the 8,192-token window (auto: windows under 512K compact at 75%)"."""
        share = self.tokens / self.context_length if self.context_length else 0.0
        return f"{self.tokens:,} tokens: {share:.0%} of the {self.context_length:,}-token window ({self.reason()})"


def resolve_threshold(config: CompressionConfig, context_length: int, model: str | None) -> Threshold:
    """The threshold for this window and model under `config`.

    Precedence: the longest `model_thresholds` key found in the model name, then
    an explicit `threshold`, then the automatic rule; `threshold_tokens` caps the result.
    """
    fraction, source = _fraction(config, context_length, model)
    tokens = int(context_length * fraction)
    cap = config.threshold_tokens
    if cap is not None and tokens > cap:
        return Threshold(int(cap), fraction, context_length, source, int(cap))
    return Threshold(tokens, fraction, context_length, source, None)


def _fraction(config: CompressionConfig, context_length: int, model: str | None) -> tuple[float, str]:
    name = (model or "").lower()
    matches = [key for key in config.model_thresholds if key.strip() and key.lower() in name]
    if matches:
        key = max(matches, key=len)
        return float(config.model_thresholds[key]), f"compression.model_thresholds['{key}']"
    if config.threshold != AUTO:
        return float(config.threshold), "compression.threshold"
    if context_length < SMALL_WINDOW:
        return SMALL_WINDOW_FRACTION, f"auto: windows under 512K compact at {SMALL_WINDOW_FRACTION:.0%}"
    return LARGE_WINDOW_FRACTION, f"auto: windows of 512K and more compact at {LARGE_WINDOW_FRACTION:.0%}"
