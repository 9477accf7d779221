"""Calibrating the rough token estimate against what the provider counts.

The estimate (about 4 characters a token) is what makes a 5,000-message
transcript cheap to measure, but providers tokenize differently: a local
model's prompt can count a quarter less, code or non-Latin text far more.
Each usage report gives one exact pair (what the provider counted for a
request, what we estimated for the same request); their ratio scales every
estimate that follows, so the meter, `/context`, the cards and the preflight
decision read in the provider's tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

# A provider count outside these bounds (a proxy reporting 1 token, a cumulative count) says more
# about the report than about the tokenizer; the ratio is clipped so one bad report cannot wreck the meter.
MIN_FACTOR = 0.25
MAX_FACTOR = 4.0


@dataclass(frozen=True)
class Calibration:
    """The factor estimates are scaled by, and how many reports it was learned from."""

    factor: float = 1.0
    samples: int = 0

    def learn(self, reported: int | None, estimated: int) -> Calibration:
        """The ratio of the latest report: the last request shares nearly all of its content with the
        next one, so it is the closest sample there is (an average would drag in requests since cut
        away by a compaction). A request without a report teaches nothing."""
        if not reported or reported <= 0 or estimated <= 0:
            return self
        factor = min(MAX_FACTOR, max(MIN_FACTOR, reported / estimated))
        return Calibration(factor, self.samples + 1)

    def scale(self, estimated: int) -> int:
        """An estimate in the provider's tokens."""
        return round(estimated * self.factor)

    def describe(self) -> str:
        """`×0.76 from the last of 3 provider reports`, or why it is still ×1."""
        if not self.samples:
            return "×1.00, uncalibrated: no provider report yet"
        reports = "the one provider report" if self.samples == 1 else f"the last of {self.samples} provider reports"
        return f"×{self.factor:.2f} from {reports}"
