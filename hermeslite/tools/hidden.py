"""Where the servers that would run a command outside the sandbox listen, so the launcher can cover them.

A tmux or screen server, the user's systemd and D-Bus, Docker and its kin
all run commands they are asked to run, with none of the sandbox's limits,
and they are asked through unix sockets named by a path, which Landlock does
not guard. Inside the command's mount namespace each directory listed here
becomes an empty tmpfs and each socket file /dev/null, so `connect()` finds
nothing there however the command is written. Abstract sockets need no list:
without network they live in another network namespace, and with it
Landlock (ABI 6) scopes them.

The list is built in hermeslite, per command, from fixed places and the
environment the command gets ($TMUX, $XDG_RUNTIME_DIR, ...): the launcher
only mounts. Paths that do not exist are left out (the launcher skips ones
that vanish in between).
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Mapping
from pathlib import Path

# Folders of root-run or per-user daemons that act on request: containers, VMs, snaps, D-Bus.
SYSTEM_FOLDERS = (
    "/run/dbus",
    "/var/run/dbus",
    "/run/screen",
    "/var/run/screen",
    "/run/docker",
    "/run/podman",
    "/run/containerd",
    "/run/crio",
    "/run/buildkit",
    "/run/libvirt",
    "/run/incus",
    "/var/lib/incus",
    "/var/lib/lxd",
    "/var/snap/lxd/common/lxd",
    "/run/k3s",
)
SYSTEM_SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/snapd.socket", "/run/snapd-snap.socket")
SYSTEMD = "/run/systemd"  # its sockets are covered one by one: resolv.conf may point into /run/systemd/resolve
# In the temp dir: X11 and ICE (a display accepts typed keys), and per-user server folders.
TEMP_FOLDERS = (".X11-unix", ".ICE-unix")
TEMP_USER_FOLDERS = ("tmux-{uid}", "emacs{uid}", "zellij-{uid}")


def hidden_paths(env: Mapping[str, str], home: Path) -> tuple[str, ...]:
    """Resolved paths to cover for a command run with `env` by this user, existing ones only."""
    uid = os.getuid()
    candidates = [*SYSTEM_FOLDERS, *SYSTEM_SOCKETS, *_systemd_sockets()]
    temps = {"/tmp", env.get("TMPDIR", ""), env.get("TMUX_TMPDIR", "")} - {""}
    for temp in temps:
        candidates += [f"{temp}/{name}" for name in TEMP_FOLDERS]
        candidates += [f"{temp}/{name.format(uid=uid)}" for name in TEMP_USER_FOLDERS]
    candidates += [f"/run/user/{uid}", env.get("XDG_RUNTIME_DIR", ""), str(home / ".screen"), env.get("SCREENDIR", "")]
    if tmux := env.get("TMUX", ""):
        candidates.append(os.path.dirname(tmux.split(",", 1)[0]))
    for name in ("DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST"):
        candidates += _socket_paths(env.get(name, ""))
    found: dict[str, None] = {}
    for path in candidates:
        if path and os.path.isabs(path) and os.path.lexists(path):
            found[os.path.realpath(path)] = None
    return tuple(found)


@functools.cache
def _systemd_sockets() -> tuple[str, ...]:
    """The sockets directly in /run/systemd (the manager's private bus, varlink services); read once."""
    try:
        entries = list(os.scandir(SYSTEMD))
    except OSError:
        return ()
    return tuple(entry.path for entry in entries if stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode))


def _socket_paths(address: str) -> list[str]:
    """The socket paths in a D-Bus address (`unix:path=/x,guid=...;...`) or a Docker host (`unix:///x`)."""
    paths = []
    for part in address.split(";"):
        if part.startswith("unix://"):
            paths.append(part[len("unix://") :])
        elif part.startswith("unix:"):
            for item in part[len("unix:") :].split(","):
                key, _, value = item.partition("=")
                if key == "path":
                    paths.append(value)
    return paths


def reveal_paths(env: Mapping[str, str], hidden: tuple[str, ...]) -> tuple[str, ...]:
    """The ssh agent's socket when it sits in a covered folder: a command with the network may use it
    (`git push` over ssh); it signs, it runs nothing."""
    agent = env.get("SSH_AUTH_SOCK", "")
    if not agent or not os.path.exists(agent):
        return ()
    agent = os.path.realpath(agent)
    return (agent,) if any(agent.startswith(folder + "/") for folder in hidden) else ()
