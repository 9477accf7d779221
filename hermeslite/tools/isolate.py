"""The launcher's namespace step: the command's own view of the machine, before Landlock and exec.

In the sandbox's user namespace (and, without network, its network namespace)
the launcher makes a private mount namespace in which:

- every mount is read-only except the writable roots (so permissions, owners
  and times outside cannot change either, which Landlock does not cover);
- /dev is a fresh tmpfs holding only the harmless devices, a private devpts
  (the user's terminals are not there; `openpty()` still works) and a private
  /dev/shm;
- the sockets of servers that would run a command outside the sandbox (tmux,
  screen, the user's D-Bus and systemd, Docker) are covered: a directory by an
  empty tmpfs, a socket file by /dev/null. Landlock cannot stop a `connect()`
  to a unix socket by path; a mount over it can;
- hermeslite's own files (`protected`) are read-only even inside a writable
  root, and every folder on the way to them is pinned (a mount point cannot be
  renamed), so a command can neither edit nor move them aside.

Mounts made here are private to the command, and Landlock, applied next,
forbids the command to unmount or remount anything. Any failure raises
OSError: the launcher then runs nothing.
"""

from __future__ import annotations

import os
import stat

from hermeslite.tools import mounts

# Devices a command gets in its /dev, and the compute devices passed through where the machine has them.
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
PASSTHROUGH = ("dri", "kfd", "kvm", "fuse")
LINKS: tuple[tuple[str, str], ...] = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"))
LINKS += (("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"), ("ptmx", "pts/ptmx"))


def enter(
    *,
    userns: int,
    netns: int | None,
    writable: list[str],
    hide: list[str],
    reveal: list[str],
    protect: list[str],
    cwd: str,
) -> None:
    """Join the sandbox's namespaces (`netns` None keeps the host's network), then build the mounts above."""
    mounts.setns(userns, mounts.CLONE_NEWUSER)
    if netns is not None:
        mounts.setns(netns, mounts.CLONE_NEWNET)
    mounts.unshare(mounts.CLONE_NEWNS)
    mounts.mount(None, "/", None, mounts.MS_REC | mounts.MS_PRIVATE)
    roots = outermost([p for p in writable if not p.startswith("/dev/") and os.path.exists(p)])
    kept = [(mounts.clone_tree(p), p) for p in roots]
    devices = [(mounts.clone_tree(f"/dev/{name}"), name) for name in _devices()]
    shown = [(mounts.clone_tree(p), p) for p in reveal if os.path.exists(p)]
    mounts.set_read_only("/")
    for fd, path in kept:
        _attach(fd, path)
    _private_dev(devices)
    for path in hide:
        _hide(path)
    for fd, path in shown:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
        _attach(fd, path)
    for path in outermost(protect):
        _protect(path, roots)
    os.chdir(cwd)  # the old cwd is on the mount now covered


def outermost(paths: list[str]) -> list[str]:
    """`paths` without those inside another of them: a recursive mount of the outer one covers them."""
    ordered = sorted(set(paths), key=len)
    kept: list[str] = []
    for path in ordered:
        if not any(_inside(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _attach(fd: int, path: str) -> None:
    try:
        mounts.attach_tree(fd, path)
    finally:
        os.close(fd)


def _devices() -> list[str]:
    names = list(DEVICES)
    for entry in os.listdir("/dev"):
        if entry.startswith("nvidia") or entry in PASSTHROUGH:
            names.append(entry)
    return names


def _private_dev(devices: list[tuple[int, str]]) -> None:
    mounts.mount("tmpfs", "/dev", "tmpfs", mounts.MS_NOSUID, "mode=0755,size=1m")
    for fd, name in devices:
        path = f"/dev/{name}"
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.mkdir(path)
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
        _attach(fd, path)
    for name, target in LINKS:
        os.symlink(target, f"/dev/{name}")
    os.mkdir("/dev/pts")
    mounts.mount("devpts", "/dev/pts", "devpts", mounts.MS_NOSUID, "newinstance,ptmxmode=0666,mode=0620")
    os.mkdir("/dev/shm")
    mounts.mount("tmpfs", "/dev/shm", "tmpfs", mounts.MS_NOSUID | mounts.MS_NODEV, "mode=1777")


def _hide(path: str) -> None:
    """An empty tmpfs over a directory, /dev/null over anything else; a symlink or a missing path is left."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        mounts.mount("tmpfs", path, "tmpfs", mounts.MS_NOSUID | mounts.MS_NODEV, "mode=0700,size=64k")
    elif not stat.S_ISLNK(mode):
        mounts.bind("/dev/null", path)


def _protect(path: str, roots: list[str]) -> None:
    """Read-only, with every folder between the writable root holding it and itself made a mount point."""
    if not os.path.exists(path):
        raise OSError(2, f"cannot protect {path}: it does not exist")
    for root in roots:
        if _inside(path, root) and path != root:
            rest = path[len(root.rstrip("/")) + 1 :].split("/")[:-1]
            folder = root.rstrip("/")
            for name in rest:
                folder = f"{folder}/{name}"
                mounts.bind(folder, folder)
            break
    mounts.bind(path, path, read_only=True)
