"""The launcher's last step before confining: a command gains no privilege, and keeps none.

`no_new_privs` stops setuid programs (sudo) and file capabilities from giving
anything; the secure bits make an exec as root (uid 0, also root inside the
sandbox's user namespace) start with no capabilities, so a command run by
root cannot reconfigure the sandbox's network namespace, load a kernel module
or reboot the machine. Kept to `os` and `ctypes`: the launcher imports it for
every command.
"""

from __future__ import annotations

import ctypes
import os

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECUREBITS = 28
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
# SECBIT_NOROOT and SECBIT_NO_CAP_AMBIENT_RAISE, each with its lock.
NO_ROOT_PRIVILEGES = 0x01 | 0x02 | 0x40 | 0x80
EPERM = 1


def drop() -> None:
    """Set no_new_privs and the secure bits, clear ambient capabilities. Raises OSError.

    Without CAP_SETPCAP (an ordinary user outside a user namespace) the secure
    bits cannot be set and are not needed: such a user has no capabilities to keep.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("cannot set no_new_privs")
    if libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
        _fail("cannot clear ambient capabilities")
    if libc.prctl(PR_SET_SECUREBITS, NO_ROOT_PRIVILEGES, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        if errno != EPERM or os.geteuid() == 0:
            raise OSError(errno, f"cannot drop root's capabilities: {os.strerror(errno)}")


def _fail(what: str) -> None:
    errno = ctypes.get_errno()
    raise OSError(errno, f"{what}: {os.strerror(errno)}")
