"""Context pressure: how close the prompt is to the compaction threshold.

The meter and the warning bar measure against the threshold (where
compaction actually fires), not the raw window, so "100%" means "compacts
now" rather than "the provider refuses".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

CRITICAL_AT = 0.95


class PressureLevel(str, Enum):
    NORMAL = "normal"
    WARNING = "warning"
    CRITICAL = "critical"


@dataclass(frozen=True)
class Pressure:
    tokens: int
    threshold: int
    context_length: int
    level: PressureLevel
    paused: bool = False  # automatic compaction is paused (the refill guard, see refill.py)

    @property
    def ratio(self) -> float:
        return self.tokens / self.threshold if self.threshold > 0 else 1.0

    @property
    def percent(self) -> int:
        return int(self.ratio * 100)


def measure_pressure(
    tokens: int, threshold: int, context_length: int, warn_at: float = 0.85, *, paused: bool = False
) -> Pressure:
    ratio = tokens / threshold if threshold > 0 else 1.0
    if ratio >= max(CRITICAL_AT, warn_at):
        level = PressureLevel.CRITICAL
    elif ratio >= warn_at:
        level = PressureLevel.WARNING
    else:
        level = PressureLevel.NORMAL
    return Pressure(tokens=tokens, threshold=threshold, context_length=context_length, level=level, paused=paused)
