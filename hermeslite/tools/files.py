"""read_file, write_file and patch: the file tools a coding agent lives on.

Reads are numbered and paged so the model can cite lines and come back for
more without flooding its context. Writes are atomic so an interrupted turn
never leaves a half-written file. Patches are exact-match so an edit lands
exactly where the model meant, or fails loudly instead of landing elsewhere.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path
from typing import Any

from hermeslite.tools.base import ToolContext, ToolResult

MAX_LINES = 2000
MAX_CHARS = 100_000
MAX_LINE_CHARS = 2000
BINARY_SNIFF = 8192
DIFF_LINES = 40


def resolve(ctx: ToolContext, path: str) -> Path:
    """`~` expanded, relative paths taken from the tool's cwd, not the process's."""
    return Path(ctx.cwd) / Path(os.path.expanduser(path))


def shown(ctx: ToolContext, path: Path) -> str:
    """Relative to cwd when inside it, so results stay short and match what the model typed."""
    try:
        return str(path.relative_to(ctx.cwd))
    except ValueError:
        return str(path)


def _error(text: str) -> ToolResult:
    return ToolResult(f"error: {text}", is_error=True)


def _unreadable(ctx: ToolContext, path: Path) -> ToolResult | None:
    """The error for a path that is not a readable text file, else None."""
    name = shown(ctx, path)
    if not path.exists():
        return _error(f"no such file: {name}")
    if path.is_dir():
        return _error(f"{name} is a directory, not a file; list it with the terminal tool (ls) or search_files")
    try:
        with open(path, "rb") as handle:
            head = handle.read(BINARY_SNIFF)
    except PermissionError:
        return _error(f"permission denied: {name}")
    if b"\0" in head:
        return _error(f"{name} looks like a binary file (it contains NUL bytes); not shown")
    return None


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temp file in the same directory and rename, keeping an existing file's mode."""
    target = Path(os.path.realpath(path))  # replace a symlink's target, not the link
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


class ReadFileTool:
    name = "read_file"
    description = (
        f"Read a text file, with line numbers. Returns at most {MAX_LINES} lines or about "
        f"{MAX_CHARS // 1000} KB per call; use offset to read further."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path, relative to the working directory"},
            "offset": {"type": "integer", "description": "first line to read, 1-based (default 1)"},
            "limit": {"type": "integer", "description": f"number of lines to read (default and max {MAX_LINES})"},
        },
        "required": ["path"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve(ctx, args["path"])
        offset, limit = int(args.get("offset") or 1), int(args.get("limit") or MAX_LINES)
        if offset < 1 or limit < 1:
            return _error("offset and limit must be 1 or more")
        problem = _unreadable(ctx, path)
        if problem:
            return problem
        limit = min(limit, MAX_LINES)
        name = shown(ctx, path)
        out: list[str] = []
        size, total, cut_by_size = 0, 0, False
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            for total, line in enumerate(handle, 1):
                if total < offset or len(out) >= limit or cut_by_size:
                    continue
                text = line.rstrip("\r\n")
                if len(text) > MAX_LINE_CHARS:
                    text = text[:MAX_LINE_CHARS] + f" …[line cut, {len(text)} chars]"
                entry = f"{total:>6}\t{text}"
                if out and size + len(entry) > MAX_CHARS:
                    cut_by_size = True
                    continue
                out.append(entry)
                size += len(entry) + 1
        if total == 0:
            return ToolResult(f"{name} is empty")
        if offset > total:
            return _error(f"offset {offset} is past the end of {name}, which has {total} lines")
        last = offset + len(out) - 1
        header = f"{name}: lines {offset}-{last} of {total}"
        if last < total:
            why = " (size cap)" if cut_by_size else ""
            out.append(f"[{total - last} more lines{why}; call read_file with offset={last + 1} to continue]")
        return ToolResult(header + "\n" + "\n".join(out))


class WriteFileTool:
    name = "write_file"
    description = (
        "Create or overwrite a file with the given content, creating parent directories. "
        "For small changes to an existing file prefer patch."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path, relative to the working directory"},
            "content": {"type": "string", "description": "the complete new content of the file"},
        },
        "required": ["path", "content"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path, content = resolve(ctx, args["path"]), args["content"]
        if path.is_dir():
            return _error(f"{shown(ctx, path)} is a directory")
        data = content.encode("utf-8")
        try:
            atomic_write(path, data)
        except PermissionError:
            return _error(f"permission denied: {shown(ctx, path)}")
        return ToolResult(f"wrote {_line_count(content)} lines ({len(data)} bytes) to {shown(ctx, path)}")


class PatchTool:
    name = "patch"
    description = (
        "Edit a file by replacing an exact piece of text. `old` must match the file exactly, "
        "whitespace included, and occur once (include surrounding lines to make it unique), "
        "unless replace_all is true."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path, relative to the working directory"},
            "old": {"type": "string", "description": "the exact text to replace"},
            "new": {"type": "string", "description": "the replacement text"},
            "replace_all": {"type": "boolean", "description": "replace every occurrence (default false)"},
        },
        "required": ["path", "old", "new"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path, old, new = resolve(ctx, args["path"]), args["old"], args["new"]
        name = shown(ctx, path)
        if not old:
            return _error("old is empty; give the exact text to replace (to create a file, use write_file)")
        if old == new:
            return _error("old and new are the same; nothing to change")
        problem = _unreadable(ctx, path)
        if problem:
            return problem
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                before = handle.read()
        except UnicodeDecodeError:
            return _error(f"{name} is not UTF-8 text; patch edits only UTF-8 files")
        count = before.count(old)
        if count == 0 and "\r\n" in before and "\r" not in old:  # model wrote \n, file uses \r\n
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
            count = before.count(old)
        if count == 0:
            return _error(f"old text not found in {name}; read the file again and copy the text exactly, "
                          "including indentation and whitespace")
        if count > 1 and not args.get("replace_all"):
            return _error(f"old text occurs {count} times in {name}; add surrounding lines to make it "
                          "unique, or set replace_all to true")
        after = before.replace(old, new)
        atomic_write(path, after.encode("utf-8"))
        return ToolResult(f"patched {name}: replaced {count} occurrence(s)\n{_diff(before, after, name)}")


def _diff(before: str, after: str, name: str) -> str:
    lines = list(difflib.unified_diff(
        before.splitlines(), after.splitlines(), f"a/{name}", f"b/{name}", n=2, lineterm=""))
    if len(lines) > DIFF_LINES:
        lines = lines[:DIFF_LINES] + [f"… ({len(lines) - DIFF_LINES} more diff lines)"]
    return "\n".join(lines)
