"""The kernel boundary around terminal commands: what confines them here, and the launcher line that applies it.

A parsed policy can be fooled (inline code, encoded scripts, a path built at
run time); the kernel cannot. Two mechanisms, both unprivileged:

- Landlock (Linux 5.13+): a command and everything it starts may read
  anything but write only beneath the working directory, the temp dir, a few
  device files and `tools.writable_paths`; from ABI 6 it cannot signal
  processes outside its sandbox nor reach their abstract unix sockets.
- User, mount and network namespaces (`isolated`): no network but a loopback
  of its own (or only the hosts of `tools.network_allow`, through
  hermeslite's proxy), every mount read-only but the writable roots, a /dev
  of its own without the user's terminals, the sockets of tmux, screen,
  D-Bus, systemd and Docker covered, and hermeslite's own files read-only
  even inside a writable root.

`tools.sandbox: auto` uses both where the kernel allows, `landlock` only
Landlock, `off` neither. Without namespaces, Landlock's TCP rules (ABI 4)
still turn the network off, but nothing hides terminal servers, and
hermeslite's files inside a writable root cannot be protected: then the
sandbox is refused and `assess` says why. Every command starts through the
`sandbox_exec` launcher; `prepare` builds its command line.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from hermeslite.paths import ensure_dir
from hermeslite.tools import namespaces
from hermeslite.tools.allow_list import AllowList
from hermeslite.tools.hidden import hidden_paths, kept_sockets, reveal_paths
from hermeslite.tools.landlock import NET_ABI, abi_version
from hermeslite.tools.protected import PACKAGE_DIR, protected_paths

# Device files ordinary commands write to or open for ioctl (`> /dev/null`, a terminal query). In
# namespaces /dev/pts, /dev/ptmx and /dev/shm are the command's own; without, only /dev/shm is shared.
DEVICE_PATHS = tuple(Path(p) for p in ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/shm"))
PRIVATE_DEVICE_PATHS = (*DEVICE_PATHS, Path("/dev/pts"), Path("/dev/ptmx"))
# The directory holding the `hermeslite` package; helpers start there, so no project file is in reach.
PACKAGE_ROOT = PACKAGE_DIR.parent
MODES = ("auto", "landlock", "off")


@dataclass(frozen=True)
class Sandbox:
    """Landlock is on, with namespaces or without: what terminal commands may write and reach."""

    abi: int
    extra_writable: tuple[Path, ...]  # tools.writable_paths, already expanded
    isolated: bool  # user, mount and network namespaces in use
    protected: tuple[Path, ...] = ()  # hermeslite's own paths (protected.protected_paths)
    network_allow: tuple[str, ...] = ()  # tools.network_allow; reachable only when isolated
    scratch: Path | None = None  # plan mode: the one folder writable, instead of cwd, temp dir and writable_paths

    def writable(self, cwd: Path) -> tuple[Path, ...]:
        """Every root writes are allowed beneath, for a command run in `cwd`."""
        devices = PRIVATE_DEVICE_PATHS if self.isolated else DEVICE_PATHS
        if self.scratch is not None:
            # Without namespaces /dev/shm is the machine's: a file there would outlive the command.
            kept = devices if self.isolated else tuple(d for d in devices if d != Path("/dev/shm"))
            return (self.scratch, *kept)
        return (Path(cwd), temp_dir(), *self.extra_writable, *devices)

    def planning(self, scratch: Path) -> Sandbox:
        """This sandbox for plan mode: nothing writable but `scratch` (and harmless devices)."""
        return replace(self, scratch=Path(os.path.realpath(scratch)))

    @property
    def denies_network(self) -> bool:
        """The kernel keeps a command off the network unless it is let through."""
        return self.isolated or self.abi >= NET_ABI

    @property
    def proxied(self) -> tuple[str, ...]:
        """The hosts commands reach without asking (through the proxy, so only with namespaces)."""
        return self.network_allow if self.isolated else ()

    def describe(self, cwd: Path) -> str:
        """`Landlock ABI 7 and namespaces: writes limited to ...`, for `hermeslite config`."""
        roots = ", ".join([str(Path(cwd)), str(temp_dir()), *map(str, self.extra_writable)])
        if not self.isolated:
            network = "no network (Landlock TCP rules)" if self.denies_network else "network not confined"
            return f"Landlock ABI {self.abi} without namespaces: writes limited to {roots}; {network}"
        reach = f"only {', '.join(self.network_allow)} through hermeslite's proxy" if self.network_allow else "none"
        return (
            f"Landlock ABI {self.abi} and namespaces: writes limited to {roots}; network: {reach}; "
            "terminal servers and the user's terminals hidden; hermeslite's own files read-only"
        )


@dataclass(frozen=True)
class Launch:
    """How to start one command: the launcher's argv, descriptors it must inherit, variables to add."""

    argv: list[str]
    fds: tuple[int, ...] = ()
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Assessment:
    """The sandbox commands get (None: none), and the line to say at start when they are not fully confined."""

    sandbox: Sandbox | None
    warning: str | None


def temp_dir() -> Path:
    """The system temp dir, resolved (a symlinked /tmp must match what the kernel sees)."""
    return Path(os.path.realpath(tempfile.gettempdir()))


def expand_paths(paths: Iterable[str], cwd: Path) -> tuple[Path, ...]:
    """Config paths with `~` expanded, relative ones taken from `cwd`, symlinks resolved."""
    return tuple(Path(os.path.realpath(Path(cwd) / Path(os.path.expanduser(p)))) for p in paths)


def assess(
    mode: str,
    writable_paths: Iterable[str],
    cwd: Path,
    network_allow: Iterable[str] = (),
    extra_protected: Iterable[Path] = (),
) -> Assessment:
    """What confines commands run in `cwd` under `tools.sandbox: mode`, and what to warn about."""
    if mode == "off":
        return Assessment(
            None,
            "sandbox off (tools.sandbox: off): terminal commands can write anywhere you can and reach the network; "
            "only the approval policy guards them",
        )
    abi = abi_version()
    if abi < 1:
        where = "this kernel" if sys.platform.startswith("linux") else platform.system() or "this system"
        return Assessment(
            None,
            f"no Landlock sandbox on {where}: terminal commands are not confined to the working directory "
            "nor kept off the network; only the approval policy guards them, and commands it cannot read ask first",
        )
    extra = expand_paths(writable_paths, cwd)
    protected = protected_paths(extra_protected)
    why_not = "tools.sandbox: landlock" if mode == "landlock" else namespaces.unavailable()
    if why_not is None:
        return Assessment(Sandbox(abi, extra, True, protected, tuple(network_allow)), None)
    roots = (Path(os.path.realpath(cwd)), temp_dir(), *extra)
    exposed = [(p, r) for p in protected for r in roots if p.is_relative_to(r)]
    if exposed:
        path, root = exposed[0]
        return Assessment(
            None,
            f"sandbox refused: {path}, which hermeslite runs or trusts, lies inside the writable {root}, and "
            f"without namespaces ({why_not}) a command could change it; commands run unconfined and risky ones ask. "
            "Run hermeslite from outside the project, or move HERMESLITE_HOME / tools.writable_paths",
        )
    sandbox = Sandbox(abi, extra, False, protected, tuple(network_allow))
    network = (
        "the network is off by Landlock's TCP rules (tools.network_allow needs namespaces and is ignored)"
        if sandbox.denies_network
        else f"the network is not confined (Landlock ABI {abi}; ABI {NET_ABI} could)"
    )
    return Assessment(
        sandbox,
        f"sandbox without namespaces ({why_not}): writes are confined and {network}, but commands can still "
        "reach servers that run commands outside it (tmux, screen, D-Bus, Docker sockets) and local "
        "services over unix sockets; commands that visibly do so ask first",
    )


def sandbox_for(
    mode: str, writable_paths: Iterable[str], cwd: Path, network_allow: Iterable[str] = ()
) -> Sandbox | None:
    """The sandbox for `tools.sandbox` (auto | landlock | off); None when off, unavailable or refused."""
    return assess(mode, writable_paths, cwd, network_allow).sandbox


def status(
    mode: str, approval: str, writable_paths: Iterable[str], cwd: Path, network_allow: Iterable[str] = ()
) -> str:
    """One line for `hermeslite config`: what confines terminal commands run in `cwd`."""
    assessed = assess(mode, writable_paths, cwd, network_allow)
    if assessed.sandbox is None:
        return str(assessed.warning)
    if approval == "allow":
        return f"Landlock ABI {assessed.sandbox.abi} available, unused: tools.approval: allow runs commands unconfined"
    described = assessed.sandbox.describe(cwd)
    return f"{described}. {assessed.warning}" if assessed.warning else described


def prepare(
    command: str, cwd: Path, sandbox: Sandbox | None, env: Mapping[str, str], *, network: bool = False
) -> Launch:
    """The launcher line for `bash -c command` in `cwd` (run it with cwd=PACKAGE_ROOT).

    `network` lets the command reach the network (the user approved it);
    otherwise a sandboxed command has none, or only the proxy. Raises OSError
    when the namespaces cannot be set up: the command must not then run.
    """
    argv = [*namespaces.python_argv(namespaces.LAUNCHER), "--cwd", str(cwd)]
    if sandbox is None:
        return Launch([*argv, "--", "bash", "-c", command])
    roots = sandbox.writable(cwd)
    argv.append("--landlock")
    for root in roots:
        argv += ["--write", str(root)]
    if not sandbox.isolated:
        offline = ["--offline"] if sandbox.denies_network and not network else []
        return Launch([*argv, *offline, "--", "bash", "-c", command])
    return _isolated(argv, command, roots, sandbox, env, network)


def _isolated(
    argv: list[str], command: str, roots: tuple[Path, ...], sandbox: Sandbox, env: Mapping[str, str], network: bool
) -> Launch:
    from hermeslite.tools.net_proxy import proxy_dir, proxy_env

    hosts = tuple(a for a in sandbox.network_allow if not a.startswith("/"))
    relay = proxy_dir(hosts) if hosts and not network else None
    forwards = AllowList.parse(hosts).loopback_ports() if relay else ()
    keeper = namespaces.keeper(relay, forwards)
    argv += ["--userns", str(keeper.userns)]
    fds = [keeper.userns]
    if not network:
        argv += ["--netns", str(keeper.netns)]
        fds.append(keeper.netns)
    kept = kept_sockets(env, [a for a in sandbox.network_allow if a.startswith("/")], network=network)
    hidden = hidden_paths(env, Path(env.get("HOME") or Path.home()), kept)
    for hide in hidden:
        argv += ["--hide", hide]
    for reveal in reveal_paths(kept, hidden):
        argv += ["--reveal", reveal]
    dirs = [r for r in roots if not str(r).startswith("/dev/")]
    for own in sandbox.protected:
        if any(own.is_relative_to(r) or r.is_relative_to(own) for r in dirs):
            if not own.exists():
                ensure_dir(own)  # a folder a command could otherwise create first (the data dir before any session)
            argv += ["--protect", str(own)]
    added = proxy_env(keeper.port) if keeper.port else {}
    return Launch([*argv, "--", "bash", "-c", command], tuple(fds), added)
