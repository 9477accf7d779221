"""Paths only known at run time (`f=$(mktemp) && echo hi > "$f"`): with the sandbox the kernel decides.

The policy cannot tell where `"$f"` points, so without a sandbox such a
write asks. With Landlock the write runs confined: inside the project or
the temp dir it works, anywhere else the kernel refuses it. Changes of
permissions, owner or timestamps are not confined by Landlock and still ask,
and so do recursive or wildcard deletes, which could empty the project or
the shared temp dir.
"""

from __future__ import annotations

import re
import stat
import tempfile
from pathlib import Path

import pytest

from hermeslite.tools.base import ToolContext
from hermeslite.tools.sandbox import sandbox_for
from hermeslite.tools.shell_policy import Boundary, Risk, judge
from hermeslite.tools.terminal import TerminalTool
from tests.tools.helpers import needs_landlock

# Landlock alone says "Permission denied"; with namespaces the folder is a read-only mount.
DENIED = re.compile("Permission denied|Read-only file system")

MKTEMP = 'f=$(mktemp) && echo hi > "$f" && cat "$f" && rm "$f"'
READ_IN = 'f=$(cat where) && echo hi > "$f" && cat "$f"'  # a path no parser can know: it is in a file


@pytest.fixture
def boundary(outside_home: Path) -> Boundary:
    (outside_home / "proj").mkdir()
    return Boundary(outside_home / "proj", outside_home, (Path(tempfile.gettempdir()),))


@pytest.mark.parametrize(
    "command, with_sandbox, without",
    [
        (READ_IN, Risk.ORDINARY, Risk.ESCAPE),
        ('f=$(cat where) && rm "$f"', Risk.ORDINARY, Risk.ESCAPE),
        ('echo x | tee "$out"', Risk.ORDINARY, Risk.ESCAPE),
        ('cd "$dir" && echo x > y', Risk.ORDINARY, Risk.ESCAPE),
        ('chmod 000 "$f"', Risk.ESCAPE, Risk.ESCAPE),
        ('touch -d 2000-01-01 "$f"', Risk.ESCAPE, Risk.ESCAPE),
        ('rm -rf "$d"', Risk.ESCAPE, Risk.ESCAPE),
        ('rm -f "$d"/*', Risk.ESCAPE, Risk.ESCAPE),
        ('echo x > "$f"; rm -rf ~/x', Risk.ESCAPE, Risk.ESCAPE),
        ('echo x > "$f"; rm -r build', Risk.DESTRUCTIVE, Risk.ESCAPE),
    ],
)
def test_the_sandbox_decides_writes_to_paths_known_only_at_run_time(boundary, command, with_sandbox, without):
    sandboxed, bare = judge(command, boundary, sandbox=True), judge(command, boundary)
    assert (sandboxed.risk, bare.risk) == (with_sandbox, without), (sandboxed, bare)
    if without == Risk.ESCAPE and "~" not in command:
        assert "a path that depends on" in bare.reason and "cannot be checked" in bare.reason


def context(outside_home: Path, *, sandbox: bool) -> ToolContext:
    proj = outside_home / "proj"
    return ToolContext(
        cwd=proj,
        terminal_timeout=20,
        boundary=Boundary(proj, outside_home, (Path(tempfile.gettempdir()),)),
        sandbox=sandbox_for("auto", (), proj) if sandbox else None,
    )


@needs_landlock
async def test_a_mktemp_pattern_runs_in_the_sandbox_and_the_kernel_holds_the_rest(boundary, outside_home):
    (outside_home / "notes.txt").write_text("my notes\n")
    ctx = context(outside_home, sandbox=True)
    made = await TerminalTool().run({"command": MKTEMP}, ctx)
    assert made.content == "hi\n[exit code: 0]"
    (ctx.cwd / "where").write_text(str(ctx.cwd / "out.txt"))
    named = await TerminalTool().run({"command": READ_IN}, ctx)
    assert named.content == "hi\n[exit code: 0]" and (ctx.cwd / "out.txt").read_text() == "hi\n"
    aimed_out = await TerminalTool().run({"command": 'f=$(echo ~/notes.txt); echo pwned > "$f"'}, ctx)
    assert DENIED.search(aimed_out.content) and (outside_home / "notes.txt").read_text() == "my notes\n"
    removed = await TerminalTool().run({"command": 'f=$(echo ~/notes.txt); rm "$f"'}, ctx)
    assert DENIED.search(removed.content) and (outside_home / "notes.txt").exists()
    mode = await TerminalTool().run({"command": 'f=$(echo ~/notes.txt); chmod 000 "$f"'}, ctx)
    assert "no one can approve this command" in mode.content
    assert stat.S_IMODE((outside_home / "notes.txt").stat().st_mode) != 0


async def test_without_a_sandbox_the_same_write_asks(boundary, outside_home):
    result = await TerminalTool().run({"command": READ_IN}, context(outside_home, sandbox=False))
    assert "no one can approve this command" in result.content and "a path that depends on" in result.content
