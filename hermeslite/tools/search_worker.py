"""The pure-Python search, run as its own process so it can be stopped.

Python's `re` backtracks: a pattern like `(a+)+$` on a long line runs for
hours, holds the GIL in C code and ignores cancellation, so a thread cannot be
stopped. search_files runs this file as a separate interpreter (`python -I
search_worker.py`, standard library only) and kills it on cancel or timeout;
the worker also caps its own CPU time in case its parent dies first.

Protocol: one JSON request on stdin, one JSON answer on stdout:
{"matches": [[path, line, text], ...], "total": n} or {"error": "..."}.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sys
from pathlib import Path

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


def files(root: Path, glob: str | None) -> list[tuple[Path, str]]:
    """(file, path relative to root) in a stable order, pruning skipped directories."""
    if root.is_file():
        return [(root, "")]
    found: list[tuple[Path, str]] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if glob is None or glob_matches(glob, relative):
                found.append((path, relative))
    return found


def search(pattern: str, root: Path, given: str, glob: str | None, limit: int) -> tuple[list[Match], int] | str:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        return f"invalid regex {pattern!r}: {exc}"
    matches: list[Match] = []
    total = 0
    for path, relative in files(root, glob):
        try:
            if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
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
    found = search(request["pattern"], Path(request["root"]), request["given"], request["glob"], request["limit"])
    answer = {"error": found} if isinstance(found, str) else {"matches": found[0], "total": found[1]}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
