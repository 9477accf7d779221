"""The sandbox's namespaces from hermeslite's side: can this kernel make them, and the keeper that holds them.

Both helpers run as `python -I -S FILE` from the `hermeslite` package, on the
base interpreter (`protected.launcher_python`): nothing in the environment, the
working directory or a venv decides what they load.

`unavailable()` runs the launcher's `--probe` once per process. `keeper()`
starts the namespace keeper (`ns_keeper`) on first use and returns file
descriptors for its user and network namespaces, which every sandboxed
command's launcher joins. A keeper that died is replaced by a new one on the
next command. Keepers exit when hermeslite does: their standard input is a
pipe only hermeslite holds.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from hermeslite.tools.protected import PACKAGE_DIR, launcher_python

LAUNCHER = PACKAGE_DIR / "tools" / "sandbox_exec.py"
KEEPER = PACKAGE_DIR / "tools" / "ns_keeper.py"
START_TIMEOUT = 30.0  # seconds; a loaded two-core machine starts Python in well under one


def python_argv(script: Path) -> list[str]:
    """`python -I -S script`: isolated from the environment, no site-packages, started by path."""
    return [str(launcher_python()), "-I", "-S", str(script)]


_probed: list[str | None] = []


def unavailable() -> str | None:
    """None when user, mount and network namespaces work for this user here; else why not, in a few words."""
    if not _probed:
        _probed.append(_probe())
    return _probed[0]


def _probe() -> str | None:
    if not os.path.exists("/proc/self/ns/user"):
        return "this kernel has no user namespaces"
    try:
        done = subprocess.run(
            [*python_argv(LAUNCHER), "--probe"],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
            cwd="/",
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the probe could not run ({exc})"
    if done.returncode == 0:
        return None
    return (done.stdout.strip() or done.stderr.strip() or f"the probe exited with {done.returncode}").splitlines()[-1]


@dataclass
class Keeper:
    """A running keeper: its process, descriptors of its namespaces, and its proxy relay's port (0: none)."""

    process: subprocess.Popen[bytes]
    userns: int
    netns: int
    port: int

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        for fd in (self.userns, self.netns):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


_keepers: dict[str, Keeper] = {}
_lock = threading.Lock()  # front ends may run commands from more than one thread


def keeper(proxy_dir: Path | None, forwards: tuple[int, ...] = ()) -> Keeper:
    """The live keeper relaying to `proxy_dir` (None: no relay) and forwarding `forwards` (ports of the
    host's loopback), started if need be. Raises OSError."""
    key = f"{proxy_dir or ''} {forwards}"
    with _lock:
        current = _keepers.get(key)
        if current is not None and current.alive():
            return current
        if current is not None:
            current.close()
        if not _keepers:
            atexit.register(close_all)
        _keepers[key] = started = _start(proxy_dir, forwards)
        return started


def _start(proxy_dir: Path | None, forwards: tuple[int, ...]) -> Keeper:
    argv = python_argv(KEEPER)
    if proxy_dir is not None:
        argv += ["--proxy", str(proxy_dir)]
        for port in forwards:
            argv += ["--forward", str(port)]
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/", start_new_session=True, close_fds=True
    )
    assert process.stdout is not None
    line = process.stdout.readline().decode(errors="replace").split()
    if line[:1] != ["ready"] or len(line) != 2:
        process.kill()
        process.wait()
        why = " ".join(line[1:]) or "it exited"
        raise OSError(f"the sandbox's namespace keeper did not start: {why}")
    try:
        userns = os.open(f"/proc/{process.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        netns = os.open(f"/proc/{process.pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        process.kill()
        process.wait()
        raise
    return Keeper(process, userns, netns, int(line[1]))


def close_all() -> None:
    """Stop every keeper (at exit, and in tests)."""
    with _lock:
        for key in list(_keepers):
            _keepers.pop(key).close()
