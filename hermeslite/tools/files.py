"""read_file, write_file and patch: the file tools a coding agent lives on.

Reads are numbered and paged so the model can cite lines and come back for
more without flooding its context. Writes are atomic so an interrupted turn
never leaves a half-written file. Patches are exact-match so an edit lands
exactly where the model meant, or fails loudly instead of landing elsewhere.

Every path is resolved first (`~`, `..`, symlinks, including a link inside
the project that points out of it) and checked against the boundary: writing
outside the working directory and `tools.writable_paths`, or reading outside
it and `tools.readable_paths`, goes through the same approval as an escaping
terminal command. Only regular files are read, without blocking, in bounded
memory and off the event loop: a FIFO, a device or a 1 GB single-line file
cannot freeze the app.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from hermeslite.context.result import plural
from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools.approval import path_refusal
from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.line_window import Window, read_window

MAX_LINES = 2000
MAX_CHARS = 100_000
MAX_LINE_CHARS = 2000
BINARY_SNIFF = 8192
DIFF_LINES = 40
MAX_PATCH_BYTES = 8 << 20  # patch holds the file twice in memory; bigger files are edited another way
FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def resolve(ctx: ToolContext, path: str) -> Path:
    """The file really touched: `~` expanded, relative to the tool's cwd, `..` applied, symlinks followed."""
    return ctx.effective_boundary.resolve(path, cwd=Path(ctx.cwd))


def shown(ctx: ToolContext, path: Path) -> str:
    """Relative to cwd when inside it, so results stay short and match what the model typed."""
    try:
        return str(path.relative_to(ctx.effective_boundary.cwd))
    except ValueError:
        return str(path)


def _open_text(ctx: ToolContext, path: Path) -> int | ToolResult:
    """A read-only descriptor on a regular file that is not binary, or the error to report.

    Opened non-blocking and checked with fstat, so a FIFO put in the file's
    place after the check still cannot make the read wait.
    """
    name = shown(ctx, path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return ToolResult.error(f"no such file: {name}")
    except PermissionError:
        return ToolResult.error(f"permission denied: {name}")
    except OSError as exc:
        return ToolResult.error(f"cannot open {name}: {exc.strerror or exc}")
    mode = os.fstat(fd).st_mode
    problem = None
    if stat.S_ISDIR(mode):
        problem = f"{name} is a directory, not a file; list it with the terminal tool (ls) or search_files"
    elif not stat.S_ISREG(mode):
        kind = next((word for test, word in FILE_KINDS if test(mode)), "not a regular file")
        problem = f"{name} is {kind}; only regular files can be read"
    elif b"\0" in os.pread(fd, BINARY_SNIFF, 0):
        problem = f"{name} looks like a binary file (it contains NUL bytes); not shown"
    if problem:
        os.close(fd)
        return ToolResult.error(problem)
    return fd


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
    role: ToolRole | None = ToolRole.READS_FILES
    writes = False
    description = (
        f"Read a text file, with line numbers. Returns at most {MAX_LINES} lines or about "
        f"{MAX_CHARS // 1000} KB per call; use offset to read further."
    )
    parameters: ClassVar[dict[str, Any]] = {
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
            return ToolResult.error("offset and limit must be 1 or more")
        refused = await path_refusal(ctx, self.name, path, write=False)
        if refused:
            return refused
        window = await asyncio.to_thread(_read, ctx, path, offset, min(limit, MAX_LINES))
        return window if isinstance(window, ToolResult) else _numbered(shown(ctx, path), window, offset)


def _read(ctx: ToolContext, path: Path, offset: int, limit: int) -> Window | ToolResult:
    opened = _open_text(ctx, path)
    if isinstance(opened, ToolResult):
        return opened
    try:
        return read_window(opened, offset, limit, MAX_CHARS, MAX_LINE_CHARS)
    finally:
        os.close(opened)


def _numbered(name: str, window: Window, offset: int) -> ToolResult:
    """The header, the numbered lines and, when more follow, how to continue."""
    total = window.lines_seen
    if total == 0:
        return ToolResult(f"{name} is empty")
    if offset > total:
        return ToolResult.error(f"offset {offset} is past the end of {name}, which has {plural(total, 'line')}")
    last = offset + len(window.entries) - 1
    of = str(total) if window.complete else f"at least {total} (counting stopped)"
    out = [f"{name}: lines {offset}-{last} of {of}", *window.entries]
    if last < total or not window.complete:
        more = f"{total - last} more lines" if window.complete else "more lines"
        why = " (size cap)" if window.cut_by_size else ""
        out.append(f"[{more}{why}; call read_file with offset={last + 1} to continue]")
    return ToolResult("\n".join(out))


class WriteFileTool:
    name = "write_file"
    role: ToolRole | None = ToolRole.WRITES_FILES
    writes = True
    description = (
        "Create or overwrite a file with the given content, creating parent directories. "
        "For small changes to an existing file prefer patch."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path, relative to the working directory"},
            "content": {"type": "string", "description": "the complete new content of the file"},
        },
        "required": ["path", "content"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path, content = resolve(ctx, args["path"]), args["content"]
        refused = await path_refusal(ctx, self.name, path, write=True)
        if refused:
            return refused
        if path.is_dir():
            return ToolResult.error(f"{shown(ctx, path)} is a directory")
        data = content.encode("utf-8")
        try:
            atomic_write(path, data)
        except PermissionError:
            return ToolResult.error(f"permission denied: {shown(ctx, path)}")
        return ToolResult(f"wrote {plural(_line_count(content), 'line')} ({len(data)} bytes) to {shown(ctx, path)}")


class PatchTool:
    name = "patch"
    role: ToolRole | None = ToolRole.PATCHES_FILES
    writes = True
    description = (
        "Edit a file by replacing an exact piece of text. `old` must match the file exactly, "
        "whitespace included, and occur once (include surrounding lines to make it unique), "
        "unless replace_all is true."
    )
    parameters: ClassVar[dict[str, Any]] = {
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
            return ToolResult.error("old is empty; give the exact text to replace (to create a file, use write_file)")
        if old == new:
            return ToolResult.error("old and new are the same; nothing to change")
        refused = await path_refusal(ctx, self.name, path, write=True)
        if refused:
            return refused
        opened = _open_text(ctx, path)
        if isinstance(opened, ToolResult):
            return opened
        try:
            if os.fstat(opened).st_size > MAX_PATCH_BYTES:
                return ToolResult.error(
                    f"{name} is larger than {MAX_PATCH_BYTES:,} bytes; edit it with the terminal tool"
                )
            with open(opened, encoding="utf-8", newline="", closefd=False) as handle:
                before = handle.read()
        except UnicodeDecodeError:
            return ToolResult.error(f"{name} is not UTF-8 text; patch edits only UTF-8 files")
        finally:
            os.close(opened)
        count = before.count(old)
        if count == 0 and "\r\n" in before and "\r" not in old:  # model wrote \n, file uses \r\n
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
            count = before.count(old)
        if count == 0:
            return ToolResult.error(
                f"old text not found in {name}; read the file again and copy the text exactly, "
                "including indentation and whitespace"
            )
        if count > 1 and not args.get("replace_all"):
            return ToolResult.error(
                f"old text occurs {count} times in {name}; add surrounding lines to make it "
                "unique, or set replace_all to true"
            )
        after = before.replace(old, new)
        atomic_write(path, after.encode("utf-8"))
        return ToolResult(f"patched {name}: replaced {count} occurrence(s)\n{_diff(before, after, name)}")


def _diff(before: str, after: str, name: str) -> str:
    lines = list(
        difflib.unified_diff(before.splitlines(), after.splitlines(), f"a/{name}", f"b/{name}", n=2, lineterm="")
    )
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"… ({len(lines) - DIFF_LINES} more diff lines)"]
    return "\n".join(lines)
