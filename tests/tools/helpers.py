"""Helpers for the tool tests: whether a process still runs, and whether this kernel has Landlock."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from hermeslite.tools.landlock import abi_version

needs_landlock = pytest.mark.skipif(abi_version() < 1, reason="this kernel has no Landlock")


def alive(pid: int) -> bool:
    """Running, not merely a zombie nobody reaped (PID 1 in a container may never reap)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def gone_within(pid: int, seconds: float = 10.0) -> bool:
    """`pid` stops running within `seconds` (a deadline, not a wait: generous for a loaded machine)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False
