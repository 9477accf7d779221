"""search_files: regex search over a tree, with ripgrep when it is installed.

ripgrep is much faster and honours .gitignore, but hermeslite must work on a
machine without it, so a pure-Python walk gives the same output format. Both
skip the directories nobody means to search (.git, node_modules, virtualenvs).
Both run as child processes that are killed when the search is cancelled or
takes longer than SEARCH_TIMEOUT: a backtracking regex can otherwise run for hours.
Both are handed the searched path as a descriptor opened on the path that was
checked (see fd_walk.py), not as a name to look up again. Inside the tree,
the Python walk goes through descriptors too; ripgrep walks by name and does
not follow symlinks, but a swap made in the middle of its walk is its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from hermeslite.context.result import plural
from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools import search_worker
from hermeslite.tools.approval import path_refusal
from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.fd_walk import PathError, open_path
from hermeslite.tools.files import resolve
from hermeslite.tools.search_worker import SKIP_DIRS, Match, display
from hermeslite.tools.spill import fit_result

TEXT_CHARS = 200
DEFAULT_RESULTS = 100
MAX_RESULTS = 1000
SEARCH_TIMEOUT = 30.0  # seconds
PROC_FD = Path("/proc/self/fd")


class SearchFilesTool:
    name = "search_files"
    role: ToolRole | None = ToolRole.SEARCHES_FILES
    writes = False
    description = (
        "Search file contents for a regular expression under a directory (or in one file). "
        "Returns path:line:text lines and a match count. Skips .git, node_modules, virtualenvs and binary files."
    )
    parameters: ClassVar[dict[str, Any]] = {
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
        refused = await path_refusal(ctx, self.name, root, write=False)  # reading outside asks, as read_file
        if refused:
            return refused
        try:
            fd = open_path(root, given)
        except PathError as exc:
            return ToolResult.error(str(exc))
        try:
            found = await _search(pattern, given, glob, limit, _Root(fd, root, Path(ctx.cwd)))
        except TimeoutError:
            return ToolResult.error(
                f"search_files stopped after {SEARCH_TIMEOUT:g} s without finishing; "
                "a pattern with nested repetition like (a+)+ can backtrack for hours: "
                "simplify it or search a narrower path"
            )
        finally:
            os.close(fd)
        if isinstance(found, str):
            return ToolResult.error(found)
        matches, total = found
        lines = [f"{path}:{line}:{_clip(text)}" for path, line, text in matches]
        more = f" (showing first {len(matches)})" if total > len(matches) else ""
        listing = "\n".join([*lines, f"{plural(total, 'match', 'matches')}{more}"])
        return ToolResult(await fit_result(ctx, self.name, listing))


@dataclass(frozen=True)
class _Root:
    """The searched file or directory: open on the path that was checked, and that path."""

    fd: int
    path: Path
    cwd: Path

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(os.fstat(self.fd).st_mode)

    @property
    def name(self) -> str:
        """What ripgrep is handed: the descriptor through /proc on Linux, so the path is not looked up
        again; elsewhere the resolved path (looked up again, which a racing swap could redirect)."""
        return f"/proc/self/fd/{self.fd}" if PROC_FD.is_dir() else str(self.path)


async def _search(pattern: str, given: str, glob: str | None, limit: int, root: _Root) -> tuple[list[Match], int] | str:
    """ripgrep when installed, else the Python worker; TimeoutError after SEARCH_TIMEOUT."""
    if not root.is_dir and not stat.S_ISREG(os.fstat(root.fd).st_mode):
        return f"{given} is not a regular file or a directory; nothing to search"
    search = (
        _ripgrep(pattern, given, glob, limit, root)
        if shutil.which("rg")
        else _python_search(pattern, root.fd, given, glob, limit)
    )
    return await asyncio.wait_for(search, SEARCH_TIMEOUT)


def _clip(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + "…"


async def _ripgrep(
    pattern: str, given: str, glob: str | None, limit: int, root: _Root
) -> tuple[list[Match], int] | str:
    """Matches and total via rg; `--null` separates the path so colons in names cannot confuse parsing.

    A directory is searched as `.` from inside it (rg's working directory is
    the open descriptor), a file by its descriptor; printed paths are shown
    as under `given`.
    """
    argv = [
        "rg",
        "--line-number",
        "--no-heading",
        "--color",
        "never",
        "--with-filename",
        "--null",
        "--sort",
        "path",
        "--hidden",
        "--max-columns",
        "400",
        "--max-columns-preview",
    ]
    for name in sorted(SKIP_DIRS):
        argv += ["--glob", f"!{name}"]
    if glob:
        argv += ["--glob", glob]
    argv += ["-e", pattern, "--", "." if root.is_dir else root.name]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=root.name if root.is_dir else str(root.cwd),
        pass_fds=(root.fd,),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 20,
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
                shown = display(given, path.removeprefix("./")) if root.is_dir else display(given, "")
                matches.append((shown, int(number) if number.isdigit() else 0, text))
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


async def _python_search(
    pattern: str, root_fd: int, given: str, glob: str | None, limit: int
) -> tuple[list[Match], int] | str:
    """The fallback search in a child interpreter, handed the open root; killed if this coroutine is cancelled."""
    request = {
        "pattern": pattern,
        "root_fd": root_fd,
        "given": given,
        "glob": glob,
        "limit": limit,
        "cpu_seconds": int(SEARCH_TIMEOUT) + 5,
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        search_worker.__file__,
        pass_fds=(root_fd,),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await proc.communicate(json.dumps(request).encode())
    except asyncio.CancelledError:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    if proc.returncode != 0:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        return f"search failed: {last[0][:300]}"
    answer = json.loads(out)
    if "error" in answer:
        return str(answer["error"])
    return [(path, line, text) for path, line, text in answer["matches"]], int(answer["total"])
