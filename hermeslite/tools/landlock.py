"""The Landlock system calls, through ctypes: ask the ABI version, confine this process's writes.

Kept to `os`, `sys` and `ctypes` because the launcher that every terminal
command starts through imports it, and each import there is paid per command.
`hermeslite.tools.sandbox` decides what is writable; this module only talks
to the kernel.

Landlock is stackable and needs no privileges; `no_new_privs` is set first, as
the kernel requires, which also stops setuid programs (sudo) from gaining
rights inside the sandbox.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys

# landlock_create_ruleset, landlock_add_rule, landlock_restrict_self. New system calls share one
# number on every architecture with the unified table (x86_64, arm64, riscv, ...).
SYSCALLS = dict.fromkeys(
    (
        "x86_64",
        "amd64",
        "i386",
        "i686",
        "aarch64",
        "arm64",
        "armv7l",
        "armv6l",
        "riscv64",
        "ppc64le",
        "ppc64",
        "s390x",
        "loongarch64",
    ),
    (444, 445, 446),
)
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

# Filesystem access rights (include/uapi/linux/landlock.h) and the ABI that introduced them.
# Reading and executing are deliberately absent: they stay unrestricted.
WRITE_FILE = 1 << 1
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: rename/link across directories; denied unless a rule grants it
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
WRITE_RIGHTS_BY_ABI = (
    (
        1,
        WRITE_FILE
        | REMOVE_DIR
        | REMOVE_FILE
        | MAKE_CHAR
        | MAKE_DIR
        | MAKE_REG
        | MAKE_SOCK
        | MAKE_FIFO
        | MAKE_BLOCK
        | MAKE_SYM,
    ),
    (2, REFER),
    (3, TRUNCATE),
    (5, IOCTL_DEV),
)
FILE_RIGHTS = WRITE_FILE | TRUNCATE | IOCTL_DEV  # the only write rights a rule on a non-directory may carry
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6
SCOPE_ABI = 6
CONNECT_TCP = 1 << 1  # ABI 4: network rights; handled with no rule, every TCP connect is refused
NET_ABI = 4


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_abi: int | None = None


def _ruleset_attr_size(abi: int) -> int:
    """The kernel wants the struct as long as the fields it knows: net came with ABI 4, scopes with 6."""
    return 24 if abi >= SCOPE_ABI else 16 if abi >= 4 else 8


def _syscall(libc: ctypes.CDLL, number: int, *args: object) -> int:
    result = libc.syscall(number, *args)
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return result


def _numbers() -> tuple[int, int, int] | None:
    return SYSCALLS.get(os.uname().machine) if sys.platform.startswith("linux") else None


def abi_version() -> int:
    """The kernel's Landlock ABI, or 0 when it has none (old kernel, disabled at boot, not Linux)."""
    global _abi
    if _abi is None:
        numbers = _numbers()
        try:
            _abi = (
                0
                if numbers is None
                else _syscall(
                    ctypes.CDLL(None, use_errno=True),
                    numbers[0],
                    None,
                    ctypes.c_size_t(0),
                    ctypes.c_uint32(CREATE_RULESET_VERSION),
                )
            )
        except OSError:
            _abi = 0
    return _abi


def write_rights(abi: int) -> int:
    """Every write-type right this ABI knows; all of them are handled, so all are denied unless granted."""
    rights = 0
    for since, bits in WRITE_RIGHTS_BY_ABI:
        if abi >= since:
            rights |= bits
    return rights


def restrict_writes(writable: list[str], *, deny_tcp: bool = False) -> None:
    """Confine this process and its future children: writes only beneath `writable`, signals and
    abstract unix sockets only within the sandbox, and with `deny_tcp` no TCP connection at all
    (ABI 4 and later; raises OSError before). Paths that do not exist are skipped. Raises OSError."""
    abi, numbers = abi_version(), _numbers()
    if abi < 1 or numbers is None:
        raise OSError("Landlock is not available on this kernel")
    create, add_rule, restrict = numbers
    libc = ctypes.CDLL(None, use_errno=True)
    handled = write_rights(abi)
    if deny_tcp and abi < NET_ABI:
        raise OSError(f"Landlock ABI {abi} cannot deny network connections (ABI {NET_ABI} can)")
    attr = _RulesetAttr(
        handled_access_fs=handled,
        handled_access_net=CONNECT_TCP if deny_tcp else 0,
        scoped=SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET if abi >= SCOPE_ABI else 0,
    )
    ruleset = _syscall(libc, create, ctypes.byref(attr), ctypes.c_size_t(_ruleset_attr_size(abi)), ctypes.c_uint32(0))
    try:
        for path in writable:
            _allow_beneath(libc, ruleset, add_rule, path, handled)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"cannot set no_new_privs: {os.strerror(errno)}")
        _syscall(libc, restrict, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


def _allow_beneath(libc: ctypes.CDLL, ruleset: int, add_rule: int, path: str, handled: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
        rule = _PathBeneathAttr(allowed_access=handled if is_dir else handled & FILE_RIGHTS, parent_fd=fd)
        _syscall(
            libc,
            add_rule,
            ctypes.c_int(ruleset),
            ctypes.c_int(RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
        )
    finally:
        os.close(fd)
