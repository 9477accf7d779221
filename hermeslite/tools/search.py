"""search_files: regex search over a tree, with ripgrep when it is installed.

ripgrep is much faster and honours .gitignore, but hermeslite must work on a
machine without it, so a pure-Python walk gives the same output format. Both
skip the directories nobody means to search (.git, node_modules, virtualenvs).
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
import shutil
from pathlib import Path
from typing import Any

from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.files import resolve

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".tox"})
TEXT_CHARS = 200
MAX_FILE_BYTES = 20_000_000
DEFAULT_RESULTS = 100
MAX_RESULTS = 1000

Match = tuple[str, int, str]


class SearchFilesTool:
    name = "search_files"
    description = (
        "Search file contents for a regular expression under a directory (or in one file). "
        "Returns path:line:text lines and a match count. Skips .git, node_modules, virtualenvs and binary files."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "regular expression to search for"},
            "path": {"type": "string", "description": "directory or file to search (default: working directory)"},
            "glob": {"type": "string", "description": "only files matching this glob, e.g. *.py or src/**/*.ts"},
            "max_results": {"type": "integer", "description": f"matching lines to show (default {DEFAULT_RESULTS})"},
        },
        "required": ["pattern"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern, given = args["pattern"], args.get("path") or "."
        glob = args.get("glob") or None
        limit = max(1, min(int(args.get("max_results") or DEFAULT_RESULTS), MAX_RESULTS))
        root = resolve(ctx, given)
        if not root.exists():
            return ToolResult(f"error: no such file or directory: {given}", is_error=True)
        if shutil.which("rg"):
            found = await _ripgrep(pattern, given, glob, limit, Path(ctx.cwd))
        else:
            found = await asyncio.to_thread(_python_search, pattern, root, given, glob, limit)
        if isinstance(found, str):
            return ToolResult(f"error: {found}", is_error=True)
        matches, total = found
        lines = [f"{path}:{line}:{_clip(text)}" for path, line, text in matches]
        more = f" (showing first {len(matches)})" if total > len(matches) else ""
        return ToolResult("\n".join(lines + [f"{total} matches{more}"]))


def _clip(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + "…"


def _display(given: str, relative: str) -> str:
    """The path as the model would write it: `src/a.py`, not `./src/a.py`."""
    joined = os.path.normpath(os.path.join(given, relative)) if relative else given
    return joined[2:] if joined.startswith("./") else joined


async def _ripgrep(pattern: str, given: str, glob: str | None, limit: int, cwd: Path) -> tuple[list[Match], int] | str:
    """Matches and total via rg; `--null` separates the path so colons in names cannot confuse parsing."""
    argv = ["rg", "--line-number", "--no-heading", "--color", "never", "--with-filename", "--null",
            "--sort", "path", "--hidden", "--max-columns", "400", "--max-columns-preview"]
    for name in sorted(SKIP_DIRS):
        argv += ["--glob", f"!{name}"]
    if glob:
        argv += ["--glob", glob]
    argv += ["-e", pattern, "--", os.path.expanduser(given)]
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=str(cwd), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=1 << 20,
    )
    matches: list[Match] = []
    total = 0
    try:
        assert proc.stdout is not None and proc.stderr is not None
        while raw := await proc.stdout.readline():
            path, _, rest = raw.decode("utf-8", "replace").partition("\0")
            number, _, text = rest.partition(":")
            total += 1
            if len(matches) < limit:
                matches.append((_display(path, ""), int(number) if number.isdigit() else 0, text))
        errors = (await proc.stderr.read()).decode("utf-8", "replace").strip()
        code = await proc.wait()
    except asyncio.CancelledError:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    if code == 2 and total == 0 and errors:
        return f"invalid regex or search failed: {errors[:500]}"
    return matches, total


def _glob_matches(glob: str, relative: str) -> bool:
    """ripgrep-style: a glob without `/` matches the file name at any depth, `!` negates."""
    negate, glob = glob.startswith("!"), glob.lstrip("!")
    name = relative.rsplit("/", 1)[-1]
    hit = fnmatch.fnmatch(relative, glob) or fnmatch.fnmatch(relative, glob.removeprefix("**/"))
    if "/" not in glob:
        hit = hit or fnmatch.fnmatch(name, glob)
    return hit != negate


def _files(root: Path, glob: str | None) -> list[tuple[Path, str]]:
    """(file, path relative to root) in a stable order, pruning skipped directories."""
    if root.is_file():
        return [(root, "")]
    found: list[tuple[Path, str]] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if glob is None or _glob_matches(glob, relative):
                found.append((path, relative))
    return found


def _python_search(pattern: str, root: Path, given: str, glob: str | None, limit: int) -> tuple[list[Match], int] | str:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        return f"invalid regex {pattern!r}: {exc}"
    matches: list[Match] = []
    total = 0
    for path, relative in _files(root, glob):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
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
                    matches.append((_display(given, relative), number, line))
    return matches, total
