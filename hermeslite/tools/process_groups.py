"""Every live tool process group, so none outlives hermeslite.

Terminal commands run in their own sessions (no controlling terminal), so
closing the terminal does not reach them and neither does a SIGTERM aimed at
hermeslite. The terminal tool records each group here while any process in it
lives (a server started with `&` keeps its group tracked after bash exits),
and `install_exit_cleanup` kills them all on every way out: normal exit, an
uncaught exception (both through atexit), SIGTERM and SIGHUP.

A process can leave its group (`setsid`, a daemon's double fork), so every tool
process also starts with OWNER in its environment, naming this hermeslite; at
exit the processes that still carry it are killed too. A program that starts
another with a cleared environment (`env -i`) drops the mark; only a cgroup
could follow that one.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
from types import FrameType

OWNER = "HERMESLITE_OWNER"  # in every tool process's environment: the pid of the hermeslite that started it
_live: set[int] = set()
_installed = False
EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def track(pgid: int) -> None:
    _live.add(pgid)


def untrack(pgid: int) -> None:
    _live.discard(pgid)


def live() -> frozenset[int]:
    return frozenset(_live)


def alive(pgid: int) -> bool:
    """True while a live (not zombie) process remains in the group.

    `killpg(pgid, 0)` alone counts zombies, and where PID 1 does not reap
    (many containers) an orphaned zombie would keep the group "alive" forever.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def prune() -> None:
    """Forget groups whose processes have all ended on their own (a server that stopped)."""
    for pgid in list(_live):
        if not alive(pgid):
            _live.discard(pgid)


def owner_mark() -> dict[str, str]:
    """The environment entry that marks a process as one this hermeslite started."""
    return {OWNER: str(os.getpid())}


def kill_all() -> None:
    """SIGKILL every tracked group, then every group of a process that left it but carries our mark."""
    for pgid in list(_live):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        _live.discard(pgid)
    for pid in _marked():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            pgid = os.getpgid(pid)
            if pgid == os.getpgrp():
                os.kill(pid, signal.SIGKILL)
            else:
                os.killpg(pgid, signal.SIGKILL)


def _marked() -> list[int]:
    """Pids whose environment at start held our OWNER mark (only our own processes are readable)."""
    mark = f"{OWNER}={os.getpid()}".encode() + b"\0"
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if environ.startswith(mark) or b"\0" + mark in environ:
            found.append(int(entry))
    return found


def _on_exit_signal(signum: int, _frame: FrameType | None) -> None:
    """Kill the tool processes, then die of the same signal as we would have without this handler."""
    kill_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install_exit_cleanup() -> None:
    """Called once by each front end. Handlers someone else installed for these signals are left alone."""
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(kill_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in EXIT_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _on_exit_signal)
