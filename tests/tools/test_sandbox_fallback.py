"""Without user namespaces (`tools.sandbox: landlock`, or a kernel that refuses them): what still holds.

Landlock alone confines writes, denies every TCP connection (ABI 4), and the
seccomp filter refuses other sockets and TIOCSTI; /dev/pts is not writable.
What it cannot do (hide a tmux server's socket) is said at start, and the
policy asks about the commands it can read.
"""

from __future__ import annotations

import os
import pty
import tty

import pytest

from hermeslite.tools.landlock import NET_ABI, abi_version
from hermeslite.tools.sandbox import assess
from hermeslite.tools.terminal import TerminalTool
from tests.tools.helpers import needs_landlock
from tests.tools.kernel_scratch import Listener

tool = TerminalTool()
pytestmark = [
    needs_landlock,
    pytest.mark.skipif(abi_version() < NET_ABI, reason="Landlock before ABI 4 has no TCP rules"),
]


async def run(ctx, command: str):
    return await tool.run({"command": command}, ctx)


def test_the_start_warning_says_what_is_not_confined(outside):
    warning = assess("landlock", [], outside.proj).warning
    assert warning.startswith("sandbox without namespaces (tools.sandbox: landlock)")
    assert "network is off by Landlock's TCP rules" in warning and "tmux, screen, D-Bus" in warning


async def test_no_connection_and_no_datagram_leaves(outside):
    listener = Listener()
    try:
        ctx = outside.ctx("auto", sandbox_mode="landlock")
        (outside.proj / "send.py").write_text(
            "import socket, sys\n"
            "try:\n    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5).sendall(b'key')\n"
            "except OSError as e:\n    print('tcp', e)\n"
            "try:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'key', ('127.0.0.1', 53))\n"
            "except OSError as e:\n    print('udp', e)\n"
        )
        result = await run(ctx, f"python3 send.py {listener.port}")
        assert "tcp [Errno 13] Permission denied" in result.content, result.content
        assert "udp [Errno 1] Operation not permitted" in result.content, result.content
        assert listener.settled() == []
    finally:
        listener.close()


async def test_the_users_terminal_is_not_writable_and_tiocsti_is_refused(outside):
    master, slave = pty.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    os.set_blocking(slave, False)
    path = os.ttyname(slave)
    try:
        ctx = outside.ctx("auto", sandbox_mode="landlock")
        (outside.proj / "inject.py").write_text(
            f"import fcntl, os, termios\nfd = os.open('{path}', os.O_RDONLY | os.O_NOCTTY)\n"
            "fcntl.ioctl(fd, termios.TIOCSTI, b'Z')\n"
        )
        written = await run(ctx, f"python3 -c \"open('{path}', 'w').write('x')\"")
        typed = await run(ctx, "python3 inject.py")
        assert "Permission denied" in written.content and "Operation not permitted" in typed.content
        for fd in (master, slave):
            with pytest.raises(BlockingIOError):
                os.read(fd, 100)
    finally:
        os.close(master)
        os.close(slave)


async def test_a_literal_tmux_command_still_asks(outside):
    result = await run(outside.ctx("auto", sandbox_mode="landlock"), "tmux -L x new-window 'rm -rf ~/canary'")
    assert "tmux server" in result.content and "no one can approve" in result.content
    assert outside.untouched()
