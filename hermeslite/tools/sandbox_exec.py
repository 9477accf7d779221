"""The launcher every terminal command starts through: limit, confine, then exec.

    cd <package root> && python -S -E -c 'import sys; from hermeslite.tools.sandbox_exec import main; ...' \\
        --cwd DIR [--landlock] [--write DIR]... -- PROGRAM ARGS...

(`sandbox.launch_argv` builds this line.) It runs as its own single-threaded process, so restricting itself cannot
deadlock the way code run between fork and exec of a multi-threaded parent
can, and whatever it execs inherits the limits. It is started in the
directory holding the `hermeslite` package (with -S -E nothing else puts it on
the path, and the user's PYTHONPATH cannot swap it), moves to `--cwd`, sets
resource limits, with `--landlock` confines writes to the `--write` roots
(failing closed: if the sandbox cannot be applied, nothing runs), then
replaces itself with PROGRAM. It imports nothing but the standard library's
smallest modules and `landlock`, and parses its arguments by hand: every
import here is paid once per command.
"""

from __future__ import annotations

import os
import resource
import sys

from hermeslite.tools.landlock import restrict_writes

# New processes a command may start on top of every task already on the machine. RLIMIT_NPROC
# counts all of the user's tasks, so a fixed number could stop an ordinary command on a busy
# desktop; this stops a fork bomb within about a thousand processes. Root ignores it.
NPROC_HEADROOM = 1024
FAILED = 126  # what a shell reports for a command found but not runnable


def complain(text: str) -> int:
    sys.stderr.write(f"hermeslite sandbox: {text}\n")
    return FAILED


def parse(argv: list[str]) -> tuple[str, bool, list[str], list[str]] | str:
    """(cwd, landlock on, writable roots, program argv), or what is wrong with `argv`."""
    cwd, landlock, writable = "", False, []
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--landlock":
            landlock = True
        elif argv[i] == "--cwd" and i + 1 < len(argv):
            cwd = argv[i + 1]
            i += 1
        elif argv[i] == "--write" and i + 1 < len(argv):
            writable.append(argv[i + 1])
            i += 1
        else:
            return f"unexpected argument {argv[i]!r}"
        i += 1
    program = argv[i + 1 :]
    if not cwd or not program:
        return "usage: --cwd DIR [--landlock] [--write DIR]... -- PROGRAM ARGS..."
    return cwd, landlock, writable, program


def limit_resources() -> None:
    """No core dumps in the project; a bounded number of new processes."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            tasks = int(handle.read().split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        return
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    cap = tasks + NPROC_HEADROOM
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))


def main(argv: list[str]) -> int:
    parsed = parse(argv)
    if isinstance(parsed, str):
        return complain(parsed)
    cwd, landlock, writable, program = parsed
    try:
        os.chdir(cwd)
    except OSError as exc:
        return complain(f"cannot enter {cwd}: {exc.strerror or exc}")
    limit_resources()
    if landlock:
        try:
            restrict_writes(writable)
        except OSError as exc:
            return complain(f"cannot confine the command ({exc}); it was not run")
    try:
        os.execvp(program[0], program)
    except OSError as exc:
        return complain(f"cannot run {program[0]}: {exc.strerror or exc}")
