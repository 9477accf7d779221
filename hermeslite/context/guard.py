"""When not to compress again: cooldown after failures, and the anti-thrash stop.

Peers have burned users' quotas re-compacting a transcript that cannot shrink,
or retrying a broken summarizer on every turn. Both are stopped here; a manual
/compress bypasses the stop because the user asked for it explicitly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

COOLDOWN_LADDER = (60.0, 300.0, 900.0)
INEFFECTIVE_SAVING = 0.10
MAX_INEFFECTIVE = 2


@dataclass
class Guard:
    clock: Callable[[], float] = field(default=time.monotonic)
    failures: int = 0
    cooldown_until: float = 0.0
    ineffective: int = 0

    def cooldown_remaining(self) -> float:
        return max(0.0, self.cooldown_until - self.clock())

    def cooling_down(self) -> bool:
        return self.cooldown_remaining() > 0

    def thrashing(self) -> bool:
        return self.ineffective >= MAX_INEFFECTIVE

    def record_failure(self) -> None:
        """Start the next, longer cooldown: 60 s, then 300 s, then 900 s."""
        step = COOLDOWN_LADDER[min(self.failures, len(COOLDOWN_LADDER) - 1)]
        self.failures += 1
        self.cooldown_until = self.clock() + step

    def record_success(self) -> None:
        self.failures = 0
        self.cooldown_until = 0.0

    def record_pass(self, before: int, after: int) -> None:
        """Count a pass that saved under 10% as a strike; a real saving clears them."""
        saved = (before - after) / before if before > 0 else 0.0
        self.ineffective = self.ineffective + 1 if saved < INEFFECTIVE_SAVING else 0

    def reset(self) -> None:
        self.failures = 0
        self.cooldown_until = 0.0
        self.ineffective = 0
