"""Real storage faults for tests: a folder that cannot be written, a small disk that fills up.

Tests run as root here, and chmod does not stop root from writing. So a
read-only folder is the folder bind-mounted read-only over itself, and a
full disk is a small tmpfs filled with zeros. Both need mount privileges;
without root the read-only folder is made with chmod (which does stop other
users), and without mount privileges the test is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _mount(*args: str) -> bool:
    try:
        done = subprocess.run(["mount", *args], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """`folder` (existing) cannot be written inside the block, not even by root."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(mode)
        return
    if not _mount("--bind", str(folder), str(folder)):
        pytest.skip("running as root without mount privileges: no way to make a folder read-only")
    try:
        if not _mount("-o", "remount,bind,ro", str(folder)):
            pytest.skip("running as root but cannot remount a bind mount read-only")
        yield folder
    finally:
        _unmount(folder)


@contextlib.contextmanager
def small_disk(folder: Path, size_kb: int) -> Iterator[Path]:
    """A tmpfs of `size_kb` KiB mounted at `folder` (created) for the block."""
    folder.mkdir(parents=True, exist_ok=True)
    if not _mount("-t", "tmpfs", "-o", f"size={size_kb}k,mode=0700", "tmpfs", str(folder)):
        pytest.skip("a small disk is a tmpfs mount, which needs root with mount privileges")
    try:
        yield folder
    finally:
        _unmount(folder)


def fill(folder: Path) -> Path:
    """Write zeros to `folder/filler` until the disk is full; returns the file (delete it to free the disk)."""
    path = folder / "filler"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    block = b"\0" * 4096
    try:
        while True:
            os.write(fd, block)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0")  # the last bytes of the last page
    finally:
        os.close(fd)
    return path
