"""read_file, write_file and patch: the file tools a coding agent lives on.

Reads are numbered and paged so the model can cite lines and come back for
more without flooding its context. Writes are atomic so an interrupted turn
never leaves a half-written file. Patches are exact-match so an edit lands
exactly where the model meant, or fails loudly instead of landing elsewhere.

Every path is resolved first (`~`, `..`, symlinks, including a link inside
the project that points out of it) and checked against the boundary: writing
outside the working directory and `tools.writable_paths`, or reading outside
it and `tools.readable_paths`, goes through the same approval as an escaping
terminal command; hermeslite's own files (tools/protected.py) are never
written, whatever the mode or the answer. The checked path is then opened without being resolved
again (fd_walk.py), so a symlink swapped in after the check fails the call
instead of redirecting it. Only regular files are read, without blocking, in bounded
memory and off the event loop: a FIFO, a device or a 1 GB single-line file
cannot freeze the app.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import stat
from pathlib import Path
from typing import Any, ClassVar

from hermeslite.context.result import plural
from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools.approval import check_edit, path_refusal
from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.edit_diff import MAX_DIFF_BYTES, EditDiff, edit_diff
from hermeslite.tools.fd_walk import Parent, PathError, open_leaf, parent_of, replace
from hermeslite.tools.line_window import Window, read_window
from hermeslite.tools.protected import protected_paths

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


def _open_text(parent: Parent) -> int:
    """A read-only descriptor on a regular file that is not binary; PathError says why not.

    Opened non-blocking and checked with fstat, so a FIFO put in the file's
    place after the check still cannot make the read wait.
    """
    name = parent.shown
    fd = open_leaf(parent)
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
        raise PathError(problem)
    return fd


def write_refusal(ctx: ToolContext, path: Path) -> ToolResult | None:
    """The refusal for a write into hermeslite's own files (config, data, trust list, code), in every mode.

    Asked before the approval, because no answer may grant it: a tool that
    rewrote the trust list or the sandbox launcher would change what the next
    session trusts or confines.
    """
    root = next((root for root in protected_paths() if path.is_relative_to(root)), None)
    if root is None:
        return None
    return ToolResult.refusal(
        f"error: refused: {shown(ctx, path)} is inside {root}, which holds hermeslite's own settings, data, trust "
        "list or code; no tool may write there, and neither approval nor tools.writable_paths can allow it"
    )


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
        window = await asyncio.to_thread(_read, path, shown(ctx, path), offset, min(limit, MAX_LINES))
        return window if isinstance(window, ToolResult) else _numbered(shown(ctx, path), window, offset)


def _read(path: Path, name: str, offset: int, limit: int) -> Window | ToolResult:
    try:
        with parent_of(path, name) as parent:
            opened = _open_text(parent)
    except PathError as exc:
        return ToolResult.error(str(exc))
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
        name = shown(ctx, path)
        refused = write_refusal(ctx, path) or await path_refusal(ctx, self.name, path, write=True)
        if refused:
            return refused
        data = content.encode("utf-8")
        diff = await asyncio.to_thread(_diff_over, path, name, data)
        refusal = await check_edit(ctx, self.name, diff)
        if refusal:
            return ToolResult.refusal(refusal, diff)
        try:
            with parent_of(path, name, create=True) as parent:
                replace(parent, data)
        except PathError as exc:
            return ToolResult.error(str(exc))
        return ToolResult(f"wrote {plural(_line_count(content), 'line')} ({len(data)} bytes) to {name}", diff=diff)


def _diff_over(path: Path, name: str, after: bytes) -> EditDiff:
    """The diff of writing `after` over what is at `path` now: a new file when nothing regular is there."""
    try:
        with parent_of(path, name) as parent:
            opened = open_leaf(parent)
    except PathError:
        return edit_diff(name, None, after)
    try:
        info = os.fstat(opened)
        if not stat.S_ISREG(info.st_mode):
            return edit_diff(name, None, after)
        if info.st_size > MAX_DIFF_BYTES:
            return edit_diff(name, None, after, before_size=info.st_size)
        with open(opened, "rb", closefd=False) as handle:
            return edit_diff(name, handle.read(MAX_DIFF_BYTES + 1), after)
    finally:
        os.close(opened)


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
        refused = write_refusal(ctx, path) or await path_refusal(ctx, self.name, path, write=True)
        if refused:
            return refused
        try:
            with parent_of(path, name) as parent:
                return await self._edit(parent, ctx, old, new, bool(args.get("replace_all")))
        except PathError as exc:
            return ToolResult.error(str(exc))

    async def _edit(self, parent: Parent, ctx: ToolContext, old: str, new: str, replace_all: bool) -> ToolResult:
        """Read, edit and write back the file in one open directory, so the file written is the file read.

        With tools.edits: ask the user may take a while to answer, so the file
        is read again before it is written: an edit made meanwhile (in the
        user's editor) fails the call instead of being overwritten.
        """
        name = parent.shown
        edited = _patched(parent, old, new, replace_all)
        if isinstance(edited, ToolResult):
            return edited
        before, after, count = edited
        diff = await asyncio.to_thread(edit_diff, name, before.encode("utf-8"), after.encode("utf-8"))
        refusal = await check_edit(ctx, self.name, diff)
        if refusal:
            return ToolResult.refusal(refusal, diff)
        if ctx.edits == "ask" and _read_text(parent) != before:
            return ToolResult.error(
                f"{name} changed while the edit waited for approval; read it again and redo the edit"
            )
        replace(parent, after.encode("utf-8"))
        return ToolResult(f"patched {name}: replaced {count} occurrence(s)\n{_diff(before, after, name)}", diff=diff)


def _read_text(parent: Parent) -> str | ToolResult:
    """The whole text of the file, exactly as stored (line endings kept), or the error to return."""
    name = parent.shown
    opened = _open_text(parent)
    try:
        if os.fstat(opened).st_size > MAX_PATCH_BYTES:
            return ToolResult.error(f"{name} is larger than {MAX_PATCH_BYTES:,} bytes; edit it with the terminal tool")
        with open(opened, encoding="utf-8", newline="", closefd=False) as handle:
            return handle.read()
    except UnicodeDecodeError:
        return ToolResult.error(f"{name} is not UTF-8 text; patch edits only UTF-8 files")
    finally:
        os.close(opened)


def _patched(parent: Parent, old: str, new: str, replace_all: bool) -> tuple[str, str, int] | ToolResult:
    """(the text before, the text after, how many occurrences were replaced), or the error to return."""
    name = parent.shown
    before = _read_text(parent)
    if isinstance(before, ToolResult):
        return before
    count = before.count(old)
    if count == 0 and "\r\n" in before and "\r" not in old:  # model wrote \n, file uses \r\n
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = before.count(old)
    if count == 0:
        return ToolResult.error(
            f"old text not found in {name}; read the file again and copy the text exactly, "
            "including indentation and whitespace"
        )
    if count > 1 and not replace_all:
        return ToolResult.error(
            f"old text occurs {count} times in {name}; add surrounding lines to make it "
            "unique, or set replace_all to true"
        )
    return before, before.replace(old, new), count


def _diff(before: str, after: str, name: str) -> str:
    lines = list(
        difflib.unified_diff(before.splitlines(), after.splitlines(), f"a/{name}", f"b/{name}", n=2, lineterm="")
    )
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"… ({len(lines) - DIFF_LINES} more diff lines)"]
    return "\n".join(lines)
