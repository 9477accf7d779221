"""The launcher every terminal command starts through: limit, isolate, confine, then exec.

    python -I -S /path/to/hermeslite/tools/sandbox_exec.py --cwd DIR [--landlock] [--write DIR]...
        [--userns FD [--netns FD] [--hide PATH]... [--reveal PATH]... [--protect PATH]...] [--offline]
        -- PROGRAM ARGS...

(`sandbox.prepare` builds this line.) It runs as its own single-threaded
process, so restricting itself cannot deadlock the way code run between fork
and exec of a multi-threaded parent can, and whatever it execs inherits every
restriction. `-I -S` and a file path: no environment variable, user site or
working directory decides what it imports, only the standard library and the
package it sits in, both of which the sandbox keeps read-only.

In order: move to `--cwd`, set resource limits; with `--userns`, enter the
sandbox's namespaces and build the command's mounts (`isolate`); with
`--landlock`, drop every privilege, install the seccomp filter and confine
writes to the `--write` roots (and, `--offline` without a network namespace,
deny TCP); exec PROGRAM. Without `--landlock` (allow mode) only the limits
apply. It fails closed: if any step fails, nothing runs. `--probe` tries the namespace steps on a throwaway namespace and reports whether they work.

It imports only the smallest standard modules (no dataclasses, typing or re)
and parses its arguments by hand: every import here is paid once per command.
"""

from __future__ import annotations

import os
import resource
import sys

# New processes a command may start on top of every task already on the machine. RLIMIT_NPROC
# counts all of the user's tasks, so a fixed number could stop an ordinary command on a busy
# desktop; this stops a fork bomb within about a thousand processes. Root ignores it.
NPROC_HEADROOM = 1024
FAILED = 126  # what a shell reports for a command found but not runnable
FLAGS = ("--landlock", "--offline", "--probe")
LISTS = ("--write", "--hide", "--reveal", "--protect")
VALUES = ("--cwd", "--userns", "--netns")
USAGE = "usage: --cwd DIR [--landlock] [--write DIR]... [--userns FD [--netns FD] ...] -- PROGRAM ARGS..."


def complain(text: str) -> int:
    sys.stderr.write(f"hermeslite sandbox: {text}\n")
    return FAILED


def parse(argv: list[str]) -> tuple[dict[str, str], set[str], dict[str, list[str]], list[str]] | str:
    """(single values, flags, lists, program argv), or what is wrong with `argv`."""
    values: dict[str, str] = {}
    flags: set[str] = set()
    lists: dict[str, list[str]] = {name: [] for name in LISTS}
    i = 0
    while i < len(argv) and argv[i] != "--":
        name = argv[i]
        if name in FLAGS:
            flags.add(name)
        elif name in VALUES + LISTS and i + 1 < len(argv):
            if name in LISTS:
                lists[name].append(argv[i + 1])
            else:
                values[name] = argv[i + 1]
            i += 1
        else:
            return f"unexpected argument {name!r}"
        i += 1
    program = argv[i + 1 :]
    if "--probe" not in flags and ("--cwd" not in values or not program):
        return USAGE
    if not all(values.get(name, "0").isdigit() for name in ("--userns", "--netns")):
        return "--userns and --netns take file descriptor numbers"
    return values, flags, lists, program


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


def confine(values: dict[str, str], flags: set[str], lists: dict[str, list[str]]) -> None:
    """Every step between limits and exec; raises OSError at the first that fails."""
    isolated = "--userns" in values
    if isolated:
        from hermeslite.tools import isolate

        isolate.enter(
            userns=int(values["--userns"]),
            netns=int(values["--netns"]) if "--netns" in values else None,
            writable=lists["--write"],
            hide=lists["--hide"],
            reveal=lists["--reveal"],
            protect=lists["--protect"],
            cwd=values["--cwd"],
        )
        for fd in (values["--userns"], values.get("--netns")):
            if fd is not None:
                os.close(int(fd))
    if "--landlock" not in flags:
        return  # tools.approval: allow, or an approved escape: only the resource limits, as the user chose
    from hermeslite.tools import landlock, privileges, seccomp

    offline = "--offline" in flags or "--netns" in values
    privileges.drop()
    if seccomp.supported():
        seccomp.install(limit_sockets=offline, tcp_only=offline and not isolated)
    landlock.restrict_writes(lists["--write"], deny_tcp=offline and not isolated)


def probe() -> int:
    """Whether this kernel lets this user build the sandbox: 0, or 1 with the reason on stdout.

    A child makes the namespaces as the keeper does; this process joins them
    and takes every step a command's launcher takes, so a kernel or security
    module that allows `unshare` but not the mounts (Ubuntu's AppArmor
    restriction) is caught here, once, not at every command.
    """
    from hermeslite.tools import ns_keeper

    ready_read, ready_write = os.pipe()
    hold_read, hold_write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(ready_read)
        os.close(hold_write)
        try:
            ns_keeper.make_namespaces()
            os.write(ready_write, b"ok")
        except OSError as exc:
            os.write(ready_write, str(exc.strerror or exc).encode())
        os.read(hold_read, 1)
        os._exit(0)
    os.close(ready_write)
    os.close(hold_read)
    try:
        answer = os.read(ready_read, 4096).decode()
        if answer != "ok":
            raise OSError(answer or "the namespace keeper failed")
        here = os.getcwd()
        userns = os.open(f"/proc/{child}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        netns = os.open(f"/proc/{child}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        values = {"--cwd": here, "--userns": str(userns), "--netns": str(netns)}
        lists = {"--write": [here], "--hide": [], "--reveal": [], "--protect": []}
        confine(values, {"--landlock"}, lists)
    except OSError as exc:
        sys.stdout.write(f"{exc.strerror or exc}\n")
        return 1
    finally:
        os.close(hold_write)
        os.waitpid(child, 0)
    return 0


def main(argv: list[str]) -> int:
    parsed = parse(argv)
    if isinstance(parsed, str):
        return complain(parsed)
    values, flags, lists, program = parsed
    if "--probe" in flags:
        return probe()
    cwd = values["--cwd"]
    try:
        os.chdir(cwd)
    except OSError as exc:
        return complain(f"cannot enter {cwd}: {exc.strerror or exc}")
    limit_resources()
    try:
        confine(values, flags, lists)
    except OSError as exc:
        return complain(f"cannot confine the command ({exc.strerror or exc}); it was not run")
    try:
        os.execvp(program[0], program)
    except OSError as exc:
        return complain(f"cannot run {program[0]}: {exc.strerror or exc}")


if __name__ == "__main__":
    # Started by path with -I: the package this file belongs to goes after the standard library.
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    sys.exit(main(sys.argv[1:]))
