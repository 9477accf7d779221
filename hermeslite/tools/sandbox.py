"""The kernel boundary around terminal commands: where they may write, and how they are started.

A parsed policy can be fooled (inline code, encoded scripts, a path built at
run time); the kernel cannot. Under Landlock a command and everything it
starts may still read anything, but may create, change, rename or delete only
beneath the working directory, the temp dir, a few device files every shell
writes to, and `tools.writable_paths`. From ABI 6 it also cannot signal
processes outside its own sandbox (so `kill -9 -1` only reaches what the
command started) nor connect to other programs' abstract unix sockets.

Every command, sandboxed or not, starts through the `sandbox_exec` launcher,
which also sets its resource limits; `launch_argv` builds that command line.
The system calls themselves live in `landlock`.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import hermeslite
from hermeslite.tools.landlock import abi_version

# Device files ordinary commands write to or open for ioctl (`> /dev/null`, a terminal query).
DEVICE_PATHS = tuple(
    Path(p) for p in ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx", "/dev/shm")
)
# `-c` rather than `-m`: runpy's imports would cost a few milliseconds on every command.
LAUNCHER = "import sys; from hermeslite.tools.sandbox_exec import main; sys.exit(main(sys.argv[1:]))"
# The directory holding the `hermeslite` package: the launcher starts there to import it.
PACKAGE_ROOT = Path(hermeslite.__file__).resolve().parent.parent


@dataclass(frozen=True)
class Sandbox:
    """Landlock is available and on: what terminal commands may write besides their cwd."""

    abi: int
    extra_writable: tuple[Path, ...] = ()  # tools.writable_paths, already expanded

    def writable(self, cwd: Path) -> tuple[Path, ...]:
        """Every root writes are allowed beneath, for a command run in `cwd`."""
        return (Path(cwd), temp_dir(), *self.extra_writable, *DEVICE_PATHS)

    def describe(self, cwd: Path) -> str:
        """`Landlock ABI 7, writes limited to ...`, for `hermeslite config`."""
        roots = [str(Path(cwd)), str(temp_dir()), *map(str, self.extra_writable)]
        return f"Landlock ABI {self.abi}, writes limited to {', '.join(roots)} and /dev/null-style devices"


def temp_dir() -> Path:
    """The system temp dir, resolved (a symlinked /tmp must match what the kernel sees)."""
    return Path(os.path.realpath(tempfile.gettempdir()))


def expand_paths(paths: Iterable[str], cwd: Path) -> tuple[Path, ...]:
    """Config paths with `~` expanded, relative ones taken from `cwd`, symlinks resolved."""
    return tuple(Path(os.path.realpath(Path(cwd) / Path(os.path.expanduser(p)))) for p in paths)


def sandbox_for(mode: str, writable_paths: Iterable[str], cwd: Path) -> Sandbox | None:
    """The sandbox for `tools.sandbox` (auto | off); None when off or when the kernel has no Landlock."""
    if mode == "off":
        return None
    abi = abi_version()
    return Sandbox(abi, expand_paths(writable_paths, cwd)) if abi > 0 else None


def unavailable_reason(mode: str) -> str | None:
    """Why commands run without the kernel boundary, in one line; None when the sandbox is on."""
    if mode == "off":
        return (
            "sandbox off (tools.sandbox: off): terminal commands can write anywhere you can; "
            "only the approval policy guards them"
        )
    if abi_version() > 0:
        return None
    where = "this kernel" if sys.platform.startswith("linux") else platform.system() or "this system"
    return (
        f"no Landlock sandbox on {where}: terminal commands are not confined to the working directory; "
        "only the approval policy guards them, and commands it cannot read ask first"
    )


def status(mode: str, approval: str, writable_paths: Iterable[str], cwd: Path) -> str:
    """One line for `hermeslite config`: what confines terminal commands run in `cwd`."""
    sandbox = sandbox_for(mode, writable_paths, cwd)
    if sandbox is None:
        return str(unavailable_reason(mode))
    if approval == "allow":
        return f"Landlock ABI {sandbox.abi} available, unused: tools.approval: allow runs commands unconfined"
    return sandbox.describe(cwd)


def launch_argv(command: str, cwd: Path, sandbox: Sandbox | None) -> list[str]:
    """`bash -c command` started through the launcher (run it with cwd=PACKAGE_ROOT)."""
    argv = [sys.executable, "-S", "-E", "-c", LAUNCHER, "--cwd", str(cwd)]
    if sandbox is not None:
        argv.append("--landlock")
        for root in sandbox.writable(cwd):
            argv += ["--write", str(root)]
    return [*argv, "--", "bash", "-c", command]
