"""A seccomp filter for sandboxed commands: no typing into a terminal, and (without network) few socket kinds.

`TIOCSTI` pushes bytes into a terminal's input queue, as if typed there, and
`TIOCLINUX` can do the like on a Linux console: either would let a command type
a line into the user's shell outside the sandbox. The filter makes both
ioctls fail with EPERM, whatever file they are aimed at.

Without network, `socket()` is limited to the families a network namespace
or Landlock's TCP rules cover (unix, netlink, IPv4, IPv6), so no other
transport (vsock to a hypervisor, Bluetooth, packet sockets) carries data out;
where there is no network namespace (`tcp_only`), IPv4 and IPv6 are further
limited to TCP, the one protocol Landlock can deny.

The program is classic BPF built here by hand (ctypes, no libseccomp), with one
branch per system-call ABI this machine can run: a 64-bit kernel also runs
32-bit code, whose system calls have other numbers. On an architecture missing
from ARCHES no filter is installed (`supported()` is False); the terminal
ioctls are then still refused by the kernel to a process without a
controlling terminal and without capabilities, which is what the launcher makes.
"""

from __future__ import annotations

import ctypes
import os

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
EPERM = 1
EAFNOSUPPORT = 97
ENOSYS = 38
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
SOCK_STREAM, SOCK_TYPE_MASK = 1, 0xF
TCP_PROTOCOLS = (0, 6)  # the default for a stream socket, IPPROTO_TCP
# BPF opcodes: load a word of seccomp_data, jump if equal, and with a constant, return.
LD_ABS, JEQ, AND, RET = 0x20, 0x15, 0x54, 0x06
NR, ARCH = 0, 4
X32 = 0x40000000


def arg(n: int) -> int:
    """Offset of the low 32 bits of argument `n` in seccomp_data (little-endian machines only)."""
    return 16 + 8 * n


# One system-call ABI: (audit arch, ioctl numbers, socket numbers, socketcall number or None).
# 32-bit x86 and arm also multiplex sockets through socketcall, whose arguments the filter cannot read.
# Plain tuples: the launcher imports this module for every command, and dataclasses costs milliseconds.
Abi = tuple[int, tuple[int, ...], tuple[int, ...], int | None]
X86_64: Abi = (0xC000003E, (16, X32 | 16, X32 | 514), (41, X32 | 41), None)
I386: Abi = (0x40000003, (54,), (359,), 102)
AARCH64: Abi = (0xC00000B7, (29,), (198,), None)
ARM: Abi = (0x40000028, (54,), (281,), 102)
RISCV64: Abi = (0xC00000F3, (29,), (198,), None)
ARCHES: dict[str, tuple[Abi, ...]] = {
    "x86_64": (X86_64, I386),
    "aarch64": (AARCH64, ARM),
    "arm64": (AARCH64, ARM),
    "riscv64": (RISCV64,),
}


class _Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Insn))]


class _Program:
    """A tiny assembler: instructions with forward jumps to named labels."""

    def __init__(self) -> None:
        self.code: list[tuple[int, str | int, str | int, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def load(self, offset: int) -> None:
        self.code.append((LD_ABS, 0, 0, offset))

    def jump_if(self, value: int, target: str) -> None:
        """Go to `target` when the loaded word equals `value`, else on to the next instruction."""
        self.code.append((JEQ, target, 0, value))

    def mask(self, bits: int) -> None:
        self.code.append((AND, 0, 0, bits))

    def ret(self, value: int) -> None:
        self.code.append((RET, 0, 0, value))

    def assemble(self) -> ctypes.Array[_Insn]:
        out = (_Insn * len(self.code))()
        for i, (code, jt, jf, k) in enumerate(self.code):
            out[i] = _Insn(code, self._offset(i, jt), self._offset(i, jf), k)
        return out

    def _offset(self, at: int, target: str | int) -> int:
        if isinstance(target, int):
            return target
        offset = self.labels[target] - at - 1
        if not 0 <= offset < 256:
            raise ValueError(f"seccomp jump to {target} out of range")
        return offset


def supported() -> bool:
    return os.uname().machine in ARCHES


def build(*, limit_sockets: bool, tcp_only: bool) -> _Program:
    """The filter: terminal ioctls refused; with `limit_sockets`, socket families too (see the module doc)."""
    prog = _Program()
    abis = ARCHES[os.uname().machine]
    prog.load(ARCH)
    for i, (arch, _, _, _) in enumerate(abis):
        prog.jump_if(arch, f"abi{i}")
    prog.ret(RET_ALLOW)
    for i, (_, ioctls, sockets, socketcall) in enumerate(abis):
        prog.label(f"abi{i}")
        prog.load(NR)
        for number in ioctls:
            prog.jump_if(number, "ioctl")
        if limit_sockets:
            for number in sockets:
                prog.jump_if(number, "socket")
            if socketcall is not None:
                prog.jump_if(socketcall, "no_socketcall")
        prog.ret(RET_ALLOW)
    prog.label("ioctl")
    prog.load(arg(1))
    prog.jump_if(TIOCSTI, "eperm")
    prog.jump_if(TIOCLINUX, "eperm")
    prog.ret(RET_ALLOW)
    if limit_sockets:
        _socket_checks(prog, tcp_only)
    prog.label("eperm")
    prog.ret(RET_ERRNO | EPERM)
    return prog


def _socket_checks(prog: _Program, tcp_only: bool) -> None:
    prog.label("socket")
    prog.load(arg(0))
    prog.jump_if(AF_UNIX, "allow")
    prog.jump_if(AF_NETLINK, "allow")
    prog.jump_if(AF_INET, "inet")
    prog.jump_if(AF_INET6, "inet")
    prog.ret(RET_ERRNO | EAFNOSUPPORT)
    prog.label("inet")
    if tcp_only:
        prog.load(arg(1))
        prog.mask(SOCK_TYPE_MASK)
        prog.jump_if(SOCK_STREAM, "stream")
        prog.ret(RET_ERRNO | EPERM)
        prog.label("stream")
        prog.load(arg(2))
        for protocol in TCP_PROTOCOLS:
            prog.jump_if(protocol, "allow")
        prog.ret(RET_ERRNO | EPERM)
    prog.label("allow")
    prog.ret(RET_ALLOW)
    prog.label("no_socketcall")
    prog.ret(RET_ERRNO | ENOSYS)


def install(*, limit_sockets: bool, tcp_only: bool) -> None:
    """Load the filter for this process and everything it starts; no_new_privs must already be set."""
    code = build(limit_sockets=limit_sockets, tcp_only=tcp_only).assemble()
    prog = _Prog(len(code), ctypes.cast(code, ctypes.POINTER(_Insn)))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"installing the seccomp filter: {os.strerror(errno)}")
