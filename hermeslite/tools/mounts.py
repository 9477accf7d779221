"""The namespace and mount system calls the sandbox launcher makes, through ctypes.

Kept to `os`, `sys`, `ctypes` and `fcntl` (and `_socket` where it is needed:
C modules with no imports of their own) because the launcher imports this for
every command. `isolate` decides what to mount where; this module only talks
to the kernel, and raises OSError naming the step that failed.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
# The mount API of Linux 5.2/5.12; new system calls share these numbers on every architecture but alpha.
OPEN_TREE, MOVE_MOUNT, MOUNT_SETATTR = 428, 429, 442
OPEN_TREE_CLONE = 1
AT_EMPTY_PATH = 0x1000
AT_RECURSIVE = 0x8000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
MOUNT_ATTR_RDONLY = 1
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1

_libc = ctypes.CDLL(None, use_errno=True)


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def _b(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def setns(fd: int, kind: int) -> None:
    """Join the namespace open at `fd` (CLONE_NEWUSER or CLONE_NEWNET)."""
    _check(_libc.setns(ctypes.c_int(fd), ctypes.c_int(kind)), "joining the sandbox's namespaces")


def map_ids(uid: int, gid: int) -> None:
    """Be the same user inside the new user namespace as outside (setgroups must be denied first)."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        except OSError as exc:
            raise OSError(exc.errno, f"writing {name}: {exc.strerror}") from None
        finally:
            os.close(fd)


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc.mount(_b(source), _b(target), _b(fstype), ctypes.c_ulong(flags), _b(data))
    _check(result, f"mount {fstype or source or ''} on {target}")


def bind(source: str, target: str, *, read_only: bool = False) -> None:
    """Bind `source` (with the mounts beneath it) on `target`; read-only all the way down if asked."""
    mount(source, target, None, MS_BIND | MS_REC)
    if read_only:
        set_read_only(target)


def set_read_only(path: str) -> None:
    """Every mount at and beneath `path` read-only (mount_setattr, recursive)."""
    attr = _MountAttr(attr_set=MOUNT_ATTR_RDONLY)
    result = _libc.syscall(
        MOUNT_SETATTR,
        ctypes.c_int(-100),  # AT_FDCWD
        _b(path),
        ctypes.c_uint(AT_RECURSIVE),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    _check(result, f"read-only {path}")


def clone_tree(path: str) -> int:
    """A detached copy of the mounts at and beneath `path`, with their current flags; an fd to it."""
    flags = OPEN_TREE_CLONE | AT_RECURSIVE | os.O_CLOEXEC
    return _check(_libc.syscall(OPEN_TREE, ctypes.c_int(-100), _b(path), ctypes.c_uint(flags)), f"copy {path}")


def attach_tree(fd: int, target: str) -> None:
    """Mount the detached tree `fd` (from `clone_tree`) on `target`."""
    result = _libc.syscall(
        MOVE_MOUNT,
        ctypes.c_int(fd),
        b"",
        ctypes.c_int(-100),
        _b(target),
        ctypes.c_uint(MOVE_MOUNT_F_EMPTY_PATH),
    )
    _check(result, f"mount the copy on {target}")


def loopback_up() -> None:
    """Bring `lo` up in this network namespace, so a command's own servers on 127.0.0.1 work."""
    import _socket  # only the keeper and the probe need it, not every command

    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        request = bytearray(b"lo".ljust(40, b"\0"))
        flags = int.from_bytes(fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, bytes(request))[16:18], sys.byteorder)
        request[16:18] = (flags | IFF_UP).to_bytes(2, sys.byteorder)
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, bytes(request))
    except OSError as exc:
        raise OSError(exc.errno, f"bringing up lo: {exc.strerror}") from None
    finally:
        sock.close()
