"""The project's files for `@` completion: listed once, matched fuzzily and fast on 50,000 paths.

In a git repository git lists them (`ls-files --cached --others
--exclude-standard`: tracked and new files, `.gitignore` honoured, no walk in
Python). Elsewhere a walk skips what each `.gitignore` on the way excludes,
and `.git`-like folders. Listing takes a subprocess or a walk, so callers run
`list_files` off the UI thread; matching is in memory.

Matching runs one regular expression over paths joined in a few large strings,
so the scan is C code rather than a Python loop per path; a query that extends
the previous one searches only the previous hits. The TUI matches on a worker
thread, so the strings are chunks: the GIL is let go between them.
"""

from __future__ import annotations

import heapq
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pathspec

LIMIT = 50  # rows a completion list shows
CHUNK = 2_000  # paths scanned by one regular expression call (see `_chunked`)
MAX_FILES = 200_000  # a home directory opened by mistake must not take the memory
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox", ".mypy_cache"})
GIT_TIMEOUT_S = 10


def list_files(root: Path) -> list[str]:
    """Paths of the project's files, relative to `root`, with '/' separators, sorted."""
    listed = _git_files(root)
    return sorted(listed if listed is not None else _walk(root))[:MAX_FILES]


def _git_files(root: Path) -> list[str] | None:
    """git's list, or None outside a work tree (or without git)."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return list(dict.fromkeys(n for n in names if n and os.path.isfile(root / n)))  # deleted, not staged: gone


def _walk(root: Path) -> list[str]:
    """Every file under `root` that no `.gitignore` on its way excludes."""
    found: list[str] = []
    ignores: list[tuple[str, pathspec.PathSpec]] = []  # (folder prefix, its .gitignore)
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        ignores = [(p, spec) for p, spec in ignores if prefix.startswith(p)]
        if ".gitignore" in files:
            try:
                lines = (Path(folder) / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            ignores.append((prefix, pathspec.GitIgnoreSpec.from_lines(lines)))
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not _ignored(ignores, f"{prefix}{d}/"))
        found.extend(prefix + f for f in files if not _ignored(ignores, prefix + f))
        if len(found) >= MAX_FILES:
            break
    return found


def _ignored(ignores: list[tuple[str, pathspec.PathSpec]], path: str) -> bool:
    """Whether a `.gitignore` excludes `path` (a folder's ends in '/'), each read relative to its folder."""
    return any(spec.match_file(path[len(prefix) :]) for prefix, spec in ignores)


@dataclass(frozen=True)
class _Corpus:
    """One listing, never changed once built, so a matching thread reads a consistent whole."""

    paths: list[str]
    chunks: list[tuple[str, str]]  # CHUNK paths joined by newlines, and that text lowered

    @classmethod
    def of(cls, paths: list[str]) -> _Corpus:
        return cls(paths, _chunked(paths))


class FileIndex:
    """The listed paths and the last query's hits, for incremental matching.

    `match` may run on a worker thread while the UI thread calls `replace`: each
    reads the listing once, as one immutable `_Corpus`, and the last query's
    hits are kept with the listing they came from, so a match never mixes two.
    """

    def __init__(self) -> None:
        self._corpus = _Corpus.of([])
        self._last: tuple[_Corpus, str, list[str]] | None = None

    @property
    def paths(self) -> list[str]:
        return self._corpus.paths

    def replace(self, paths: list[str]) -> None:
        self._corpus = _Corpus.of(paths)
        self._last = None

    def match(self, query: str, limit: int = LIMIT, *, cancelled: Callable[[], bool] = lambda: False) -> list[str]:
        """Paths that hold the query's characters in order (case-insensitive), best first.

        `cancelled` is asked between chunks: a query the user has typed past stops early
        (its result, then empty, is not for showing) and is not kept for the next one.
        """
        corpus = self._corpus
        if not query:
            return [p for p in corpus.paths if "/" not in p][:limit] or corpus.paths[:limit]
        chunks = corpus.chunks
        last = self._last
        if last is not None and last[0] is corpus and query.startswith(last[1]):
            chunks = _chunked(last[2])
        hits: list[str] = []
        for pool, lowered in chunks:
            if cancelled():
                return []
            hits += _scan(pool, lowered, query)
        self._last = (corpus, query, hits)
        return heapq.nsmallest(limit, hits, key=lambda p: _rank(p, query.lower()))


def _chunked(paths: list[str]) -> list[tuple[str, str]]:
    """The paths in CHUNK-sized texts: a regular expression holds the GIL for its whole scan, so a
    scan of one chunk, not of every path, is the longest the UI thread waits for a matching thread."""
    chunks = []
    for start in range(0, len(paths), CHUNK):
        joined = "\n".join(paths[start : start + CHUNK])
        chunks.append((joined, joined.lower()))
    return chunks


def _scan(pool: str, lowered: str, query: str) -> list[str]:
    """The lines of `pool` holding the query's characters in order, ignoring case.

    Each gap stops at the next wanted character, so the scan never backtracks.
    Searching a lowered copy without re.IGNORECASE is several times faster; it
    is used when lowering keeps every offset (it does not for a few letters, such as 'İ').
    """
    query = query.lower()
    pattern = re.compile("^" + "".join(f"[^\n{re.escape(c)}]*{re.escape(c)}" for c in query) + "[^\n]*", re.M)
    if len(lowered) != len(pool):
        return re.compile(pattern.pattern, re.M | re.I).findall(pool)
    return [pool[m.start() : m.end()] for m in pattern.finditer(lowered)]


def _rank(path: str, query: str) -> tuple[int, int, str]:
    """Contiguous hits first (at the start of the path, then of its name, then anywhere), then shorter."""
    low = path.lower()
    name = low.rsplit("/", 1)[-1]
    if low.startswith(query):
        kind = 0
    elif name.startswith(query):
        kind = 1
    elif query in low:
        kind = 2
    else:
        kind = 3
    return kind, len(path), path
