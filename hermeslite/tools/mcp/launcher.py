"""The process every stdio MCP server starts through, so that none outlives hermeslite.

    python -S -E launcher.py PROGRAM ARGS...

An MCP server should exit when its stdin closes, and hermeslite stops its
servers that way, then with signals to their process group. But a `kill -9`
of hermeslite runs nothing in it, and a server may ignore the closed pipe. So
the launcher asks the kernel for SIGTERM when the thread that started it dies
(Linux's PR_SET_PDEATHSIG, which a SIGKILL of the whole process triggers
too), runs PROGRAM as its child in the process group the MCP SDK made it lead,
and waits. If that SIGTERM comes after hermeslite is gone (the launcher has
been handed to another parent), it kills its group and every process that
still carries hermeslite's owner mark (a descendant that left the group) and
exits. While hermeslite lives, a signal is passed on to PROGRAM.

When PROGRAM ends, a line on stderr (the server's log) says how, which is
what a failure report quotes, and the launcher kills its group, itself last,
so what the server left running in it ends too. It is run by
path with -S -E: the standard library only, no site packages, nothing from
the user's PYTHON* variables.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

OWNER = "HERMESLITE_OWNER"  # the same mark process_groups.py gives every tool process
PR_SET_PDEATHSIG = 1
NOT_RUNNABLE = 127


def _on_parent_death(signum: int) -> bool:
    """Ask for `signum` when the parent thread dies; False where the kernel has no such request."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _marked(owner: str) -> list[int]:
    """Pids whose environment carries `owner`'s mark (this launcher and its child included)."""
    mark = f"{OWNER}={owner}".encode() + b"\0"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if environ.startswith(mark) or b"\0" + mark in environ:
            found.append(int(entry))
    return found


def _orphaned_cleanup(spared: int) -> None:
    """hermeslite is gone: kill what it left running, this launcher's group last (it is in it).
    A marked process in group `spared` (hermeslite's, which may hold the user's shell
    pipeline) is killed alone, never with its group."""
    owner = os.environ.get(OWNER)
    if owner:
        for pid in _marked(owner):
            if pid == os.getpid():
                continue
            try:
                group = os.getpgid(pid)
                if group in (os.getpgrp(), spared):
                    os.kill(pid, signal.SIGKILL)
                else:
                    os.killpg(group, signal.SIGKILL)
            except OSError:
                continue
    _end_group()
    os._exit(NOT_RUNNABLE)


def _end_group() -> None:
    """SIGKILL this launcher's process group, when it leads one (the MCP SDK starts it so):
    never the group of whoever ran it by hand."""
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)


def _start(program: list[str]) -> int:
    """Fork PROGRAM as the child: it dies with this launcher, and reports a program it cannot run."""
    child = os.fork()
    if child:
        return child
    _on_parent_death(signal.SIGKILL)
    try:
        os.execvp(program[0], program)
    except OSError as exc:
        os.write(2, f"hermeslite: cannot run {program[0]}: {exc.strerror or exc}\n".encode())
    os._exit(NOT_RUNNABLE)


def _status_line(status: int) -> tuple[str, int]:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"hermeslite: the server was killed by signal {number}", 128 + number
    code = os.waitstatus_to_exitcode(status)
    return f"hermeslite: the server exited with status {code}", code


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: launcher.py PROGRAM ARGS...\n")
        return 2
    parent = os.getppid()
    try:
        spared = os.getpgid(parent)
    except OSError:
        spared = -1
    _on_parent_death(signal.SIGTERM)
    if os.getppid() != parent:  # hermeslite died before the request was in place
        _orphaned_cleanup(spared)
    child = _start(argv)

    def on_signal(signum: int, _frame: object) -> None:
        if os.getppid() != parent:
            _orphaned_cleanup(spared)
        with contextlib.suppress(OSError):
            os.kill(child, signum)

    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, on_signal)
    # The child holds the pipes to hermeslite; without our copies its exit is their end.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    _, status = os.waitpid(child, 0)
    line, code = _status_line(status)
    if code != 0:
        os.write(2, (line + "\n").encode())
    _end_group()  # what the server left running in its group ends with it, this launcher last
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
