"""Which unix sockets a sandboxed command must not reach, so the launcher can cover them.

A tmux or screen server, the user's systemd and D-Bus, Docker and its kin
all run commands they are asked to run, with none of the sandbox's limits,
and they are asked through unix sockets named by a path, which Landlock does
not guard. Inside the command's mount namespace each folder listed here
becomes an empty tmpfs and each socket /dev/null, so `connect()` finds
nothing there however the command is written.

The sockets are read from /proc/net/unix in hermeslite's own network
namespace, per command: every socket bound to a path by a program outside the
sandbox, wherever it is (`tmux -S ~/x.sock` too), except those the user let
through (`tools.network_allow` entries that are paths) and, for a command
allowed on the network, the ssh agent. Sockets bound by sandboxed commands
live in the sandbox's own namespace and stay reachable to the next command.
Abstract sockets need no list: without network they are in another network
namespace, and with it Landlock (ABI 6) scopes them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

# Folders of servers that run what they are told, covered whole (with what they will hold later).
SERVER_FOLDERS = (
    "/run/dbus",
    "/run/screen",
    "/run/docker",
    "/run/podman",
    "/run/containerd",
    "/run/libvirt",
    "/run/incus",
    "/var/lib/incus",
    "/var/lib/lxd",
    "/var/snap/lxd/common/lxd",
)
# In a temp dir: X11 and ICE (a display takes typed keys), and per-user server folders.
TEMP_FOLDERS = (".X11-unix", ".ICE-unix", "tmux-{uid}", "emacs{uid}", "zellij-{uid}")
LISTENING = "/proc/net/unix"


def kept_sockets(env: Mapping[str, str], keep: Iterable[str] = (), *, network: bool = False) -> tuple[str, ...]:
    """Resolved socket paths (or folders of them) a command may reach: `keep` (paths in
    tools.network_allow) and, for a command allowed on the network, the ssh agent."""
    kept = [os.path.realpath(p) for p in keep]
    if network and env.get("SSH_AUTH_SOCK"):
        kept.append(os.path.realpath(env["SSH_AUTH_SOCK"]))
    return tuple(kept)


def hidden_paths(env: Mapping[str, str], home: Path, kept: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Resolved folders and sockets to cover for a command run with `env`, outermost only, none of
    them `kept` or inside a kept path (a kept socket inside a covered folder is revealed instead)."""
    uid = os.getuid()
    folders = list(SERVER_FOLDERS)
    for temp in {"/tmp", env.get("TMPDIR", ""), env.get("TMUX_TMPDIR", "")} - {""}:
        folders += [f"{temp}/{name.format(uid=uid)}" for name in TEMP_FOLDERS]
    folders += [f"/run/user/{uid}", env.get("XDG_RUNTIME_DIR", ""), str(home / ".screen"), env.get("SCREENDIR", "")]
    found: dict[str, None] = {}
    for path in [*folders, *listening_sockets()]:
        if path and os.path.isabs(path) and os.path.lexists(path):
            real = os.path.realpath(path)
            if not any(_inside(real, k) for k in kept):
                found[real] = None
    return tuple(p for p in found if not any(_inside(p, other) and p != other for other in found))


def listening_sockets() -> list[str]:
    """Paths of the unix sockets bound in this network namespace (the last field of /proc/net/unix)."""
    try:
        with open(LISTENING, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()[1:]
    except OSError:
        return []
    paths = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            paths.append(fields[7])
    return paths


def reveal_paths(kept: tuple[str, ...], hidden: tuple[str, ...]) -> tuple[str, ...]:
    """Kept sockets that sit in a covered folder: the launcher binds them back into the tmpfs."""
    return tuple(k for k in kept if os.path.exists(k) and any(_inside(k, folder) and k != folder for folder in hidden))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
