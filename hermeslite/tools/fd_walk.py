"""Opening a checked path without resolving it a second time.

The file tools resolve a path once (`~`, `..`, symlinks) and check the result
against the boundary. Handing that string to `open()` again would let the
kernel resolve it a second time, and a program in the project that swaps a
directory and a symlink to `~/.ssh` in a loop (`renameat2(RENAME_EXCHANGE)`)
turns a checked write into one outside. So the resolved path is walked one
component at a time from `/`, each directory opened relative to the one before
with O_NOFOLLOW | O_DIRECTORY, and the file is opened, created and renamed
relative to the last directory's descriptor. A resolved path holds no
symlinks, so meeting one means the tree changed after the check: the walk
fails instead of following it. This is what openat2's RESOLVE_NO_SYMLINKS
does in one call; the walk gives the same guarantee on every POSIX kernel,
so there is one code path to trust.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

# O_PATH (Linux) opens a directory one may pass through but not list, as path lookup does.
DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


class PathError(Exception):
    """A path that could not be opened or written; `str()` is the one line the model reads."""


@dataclass(frozen=True)
class Parent:
    """The open directory a file lives in, and the file's name in it."""

    fd: int
    name: str
    shown: str  # the path as the model reads it, for messages


@contextmanager
def parent_of(path: Path, shown: str, *, create: bool = False) -> Iterator[Parent]:
    """The directory holding resolved `path`, opened without following a symlink; `create` makes missing ones."""
    if path.parent == path:
        raise PathError(f"{shown} is a directory")
    if "\0" in str(path):
        raise PathError(f"{shown} contains a NUL byte, which no file name can hold")
    fd = os.open("/", DIR_FLAGS)
    try:
        for part in path.parts[1:-1]:
            child = _descend(fd, part, shown, create)
            os.close(fd)
            fd = child
        yield Parent(fd, path.name, shown)
    finally:
        os.close(fd)


def _descend(fd: int, part: str, shown: str, create: bool) -> int:
    """Open directory `part` inside `fd`, making it first when `create` and it is missing."""
    try:
        try:
            child = os.open(part, DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            with suppress(FileExistsError):  # made meanwhile by someone else: opened below, still not followed
                os.mkdir(part, dir_fd=fd)
            child = os.open(part, DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        raise PathError(_walk_message(exc, fd, part, shown)) from None
    return child


def _walk_message(exc: OSError, fd: int, part: str, shown: str) -> str:
    """Why directory `part` would not open. It was a directory when the path was resolved, so a
    symlink there now, or a directory again by the time we look, means it was swapped meanwhile."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return f"no such file: {shown} ({part} is not a directory)" if _is_file(fd, part) else moved(shown, part)
    if exc.errno == errno.ENOENT:
        return f"no such file: {shown}"
    return describe(exc, shown)


def _is_file(fd: int, name: str) -> bool:
    """`name` in `fd` is something other than a directory or a symlink."""
    try:
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
    except OSError:
        return False
    return not (stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def moved(shown: str, part: str) -> str:
    return (
        f"{shown} changed while it was being opened ({part} was swapped for a symlink): something is "
        "moving files on this path; nothing was read or written"
    )


def describe(exc: OSError, shown: str, doing: str = "open") -> str:
    """One line for an OSError while `doing` something to `shown`: no exception class, no errno number."""
    if isinstance(exc, PermissionError):
        return f"permission denied: {shown}"
    if isinstance(exc, FileNotFoundError):
        return f"no such file: {shown}"
    return f"cannot {doing} {shown}: {exc.strerror or exc}"


def open_leaf(parent: Parent) -> int:
    """A read-only, non-blocking descriptor on the file itself, refusing a symlink in its place."""
    try:
        return os.open(parent.name, READ_FLAGS, dir_fd=parent.fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathError(moved(parent.shown, parent.name)) from None
        raise PathError(describe(exc, parent.shown)) from None


def open_path(path: Path, shown: str) -> int:
    """A read-only descriptor on resolved `path` itself, a file or a directory, with no symlink followed."""
    if path.parent == path:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    with parent_of(path, shown) as parent:
        return open_leaf(parent)


def replace(parent: Parent, data: bytes) -> None:
    """Write `data` to a new temp file beside the file and rename it over the name, in `parent.fd`.

    An existing file keeps its mode (the temp file is private until it has
    it, so a secret is never readable by others meanwhile); a new one gets the
    umask's. The rename
    replaces whatever entry has the name (a symlink put there meanwhile is
    replaced, not followed), and the temp file is removed on any failure,
    including an interrupt.
    """
    try:
        existing = os.stat(parent.name, dir_fd=parent.fd, follow_symlinks=False)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise PathError(describe(exc, parent.shown, "write")) from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise PathError(f"{parent.shown} is a directory")
    temp = f".{parent.name[:200]}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        out = os.open(temp, flags, 0o600 if existing is not None else 0o666, dir_fd=parent.fd)
    except OSError as exc:
        raise PathError(describe(exc, parent.shown, "write")) from None
    try:
        try:
            _write_all(out, data)
            if existing is not None and stat.S_ISREG(existing.st_mode):
                os.fchmod(out, stat.S_IMODE(existing.st_mode))
        finally:
            os.close(out)
        os.rename(temp, parent.name, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
    except BaseException as exc:
        _remove(parent.fd, temp)
        if isinstance(exc, IsADirectoryError):
            raise PathError(f"{parent.shown} is a directory") from None
        if isinstance(exc, OSError):
            raise PathError(describe(exc, parent.shown, "write")) from None
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _remove(fd: int, name: str) -> None:
    with suppress(OSError):
        os.unlink(name, dir_fd=fd)
