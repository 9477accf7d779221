"""How long a test waits for something before calling it lost, on a machine that may be loaded.

A wait's limit is only there to fail a test that would otherwise hang, so it
must never be what fails a slow but working run. The limits tests write are
for an idle machine; `patience` stretches them by the load per core (read
again at each check, so a load that rises during the wait extends it), and by
HERMESLITE_TEST_PATIENCE for a machine slower still (a debug build, an
emulator). Tests still wait on events: the limit is the give-up time, not a
sleep.
"""

from __future__ import annotations

import os


def stretch() -> float:
    """How much longer than on an idle machine to wait now: the load per core (at least 1), times
    HERMESLITE_TEST_PATIENCE (default 1)."""
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return max(1.0, per_core) * float(os.environ.get("HERMESLITE_TEST_PATIENCE") or 1)


def patience(seconds: float) -> float:
    """`seconds` (the give-up time on an idle machine) for this machine as loaded now."""
    return seconds * stretch()
