"""search_files: regex search over a tree, with ripgrep when it is installed.

ripgrep is much faster and honours .gitignore, but hermeslite must work on a
machine without it, so a pure-Python walk gives the same output format. Both
skip the directories nobody means to search (.git, node_modules, virtualenvs).
Both run as child processes that are killed when the search is cancelled or
takes longer than SEARCH_TIMEOUT: a backtracking regex can otherwise run for hours.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, ClassVar

from hermeslite.context.result import plural
from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools import search_worker
from hermeslite.tools.approval import path_refusal
from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.files import resolve
from hermeslite.tools.search_worker import SKIP_DIRS, Match, display

TEXT_CHARS = 200
DEFAULT_RESULTS = 100
MAX_RESULTS = 1000
SEARCH_TIMEOUT = 30.0  # seconds


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
        if not root.exists():
            return ToolResult.error(f"no such file or directory: {given}")
        search = (
            _ripgrep(pattern, given, glob, limit, Path(ctx.cwd))
            if shutil.which("rg")
            else _python_search(pattern, root, given, glob, limit)
        )
        try:
            found = await asyncio.wait_for(search, SEARCH_TIMEOUT)
        except TimeoutError:
            return ToolResult.error(
                f"search_files stopped after {SEARCH_TIMEOUT:g} s without finishing; "
                "a pattern with nested repetition like (a+)+ can backtrack for hours: "
                "simplify it or search a narrower path"
            )
        if isinstance(found, str):
            return ToolResult.error(found)
        matches, total = found
        lines = [f"{path}:{line}:{_clip(text)}" for path, line, text in matches]
        more = f" (showing first {len(matches)})" if total > len(matches) else ""
        return ToolResult("\n".join([*lines, f"{plural(total, 'match', 'matches')}{more}"]))


def _clip(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + "…"


async def _ripgrep(pattern: str, given: str, glob: str | None, limit: int, cwd: Path) -> tuple[list[Match], int] | str:
    """Matches and total via rg; `--null` separates the path so colons in names cannot confuse parsing."""
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
    argv += ["-e", pattern, "--", os.path.expanduser(given)]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
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
                matches.append((display(path, ""), int(number) if number.isdigit() else 0, text))
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
    pattern: str, root: Path, given: str, glob: str | None, limit: int
) -> tuple[list[Match], int] | str:
    """The fallback search in a child interpreter, killed if this coroutine is cancelled."""
    request = {
        "pattern": pattern,
        "root": str(root),
        "given": given,
        "glob": glob,
        "limit": limit,
        "cpu_seconds": int(SEARCH_TIMEOUT) + 5,
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        search_worker.__file__,
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
