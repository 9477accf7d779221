"""The pure-Python search, run as its own process so it can be stopped.

Python's `re` backtracks: a pattern like `(a+)+$` on a long line runs for
hours, holds the GIL in C code and ignores cancellation, so a thread cannot be
stopped. search_files runs this file as a separate interpreter (`python -I
search_worker.py`, standard library only) and kills it on cancel or timeout;
the worker also caps its own CPU time in case its parent dies first.

The root is handed over as an open descriptor (`root_fd`), opened by the
tool on the path it checked, so the worker never resolves that path again.
Protocol: one JSON request on stdin, one JSON answer on stdout:
{"matches": [[path, line, text], ...], "total": n} or {"error": "..."}.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import stat
import sys
from collections.abc import Iterator

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".tox"})
MAX_FILE_BYTES = 20_000_000
MAX_TEXT = 1000  # characters of a matching line sent back; the tool clips further for display

Match = tuple[str, int, str]


def display(given: str, relative: str) -> str:
    """The path as the model would write it: `src/a.py`, not `./src/a.py`."""
    joined = os.path.normpath(os.path.join(given, relative)) if relative else given
    return joined[2:] if joined.startswith("./") else joined


def glob_matches(glob: str, relative: str) -> bool:
    """ripgrep-style: a glob without `/` matches the file name at any depth, `!` negates."""
    negate, glob = glob.startswith("!"), glob.lstrip("!")
    name = relative.rsplit("/", 1)[-1]
    hit = fnmatch.fnmatch(relative, glob) or fnmatch.fnmatch(relative, glob.removeprefix("**/"))
    if "/" not in glob:
        hit = hit or fnmatch.fnmatch(name, glob)
    return hit != negate


def contents(root_fd: int, glob: str | None) -> Iterator[tuple[str, bytes]]:
    """(path relative to the root, bytes) of each text file to search, in a stable order.

    The tree is walked through directory descriptors (os.fwalk), and files are
    opened relative to them with O_NOFOLLOW, so a directory swapped for a
    symlink during the walk is not followed out of the tree; symlinked files
    are skipped, as ripgrep skips them.
    """
    if not stat.S_ISDIR(os.fstat(root_fd).st_mode):
        data = _text(root_fd)
        if data is not None:
            yield "", data
        return
    for folder, dirs, names, folder_fd in os.fwalk(".", dir_fd=root_fd):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            relative = os.path.normpath(os.path.join(folder, name))
            if glob is not None and not glob_matches(glob, relative):
                continue
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder_fd)
            except OSError:
                continue
            try:
                data = _text(fd)
            finally:
                os.close(fd)
            if data is not None:
                yield relative, data


def _text(fd: int) -> bytes | None:
    """The contents of a regular file that is not too big and not binary, else None."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        data = os.pread(fd, info.st_size + 1, 0)
    except OSError:
        return None
    return None if b"\0" in data[:8192] else data


def search(pattern: str, root_fd: int, given: str, glob: str | None, limit: int) -> tuple[list[Match], int] | str:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        return f"invalid regex {pattern!r}: {exc}"
    matches: list[Match] = []
    total = 0
    for relative, data in contents(root_fd, glob):
        lines = data.decode("utf-8", "replace").split("\n")  # only \n ends a line, as in rg
        if lines[-1] == "":
            lines.pop()
        for number, line in enumerate(lines, 1):
            if regex.search(line):
                total += 1
                if len(matches) < limit:
                    matches.append((display(given, relative), number, line[:MAX_TEXT]))
    return matches, total


def main() -> None:
    request = json.load(sys.stdin)
    if sys.platform != "win32":
        import resource

        seconds = int(request["cpu_seconds"])
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    found = search(request["pattern"], request["root_fd"], request["given"], request["glob"], request["limit"])
    answer = {"error": found} if isinstance(found, str) else {"matches": found[0], "total": found[1]}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
