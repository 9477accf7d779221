"""read_file, write_file and patch."""

import asyncio
import os
import stat
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from hermeslite.tools import files
from hermeslite.tools.files import PatchTool, ReadFileTool, WriteFileTool

read, write, patch = ReadFileTool(), WriteFileTool(), PatchTool()


def numbered(n: int, text: str) -> str:
    return f"{n:>6}\t{text}"


# read_file


async def test_read_numbers_lines(ctx):
    (ctx.cwd / "a.txt").write_text("alpha\nbeta\n")
    result = await read.run({"path": "a.txt"}, ctx)
    assert result.content == f"a.txt: lines 1-2 of 2\n{numbered(1, 'alpha')}\n{numbered(2, 'beta')}"
    assert not result.is_error


async def test_read_offset_and_limit_with_a_note_to_continue(ctx):
    (ctx.cwd / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    result = await read.run({"path": "a.txt", "offset": 3, "limit": 2}, ctx)
    lines = result.content.splitlines()
    assert lines[:3] == ["a.txt: lines 3-4 of 10", numbered(3, "line 3"), numbered(4, "line 4")]
    assert "offset=5" in lines[3]


async def test_read_caps_at_2000_lines(ctx):
    (ctx.cwd / "big.txt").write_text("x\n" * 2500)
    result = await read.run({"path": "big.txt", "limit": 5000}, ctx)
    assert result.content.count("\tx") == 2000
    assert "offset=2001" in result.content.splitlines()[-1]


async def test_read_caps_at_about_100_kb(ctx):
    (ctx.cwd / "wide.txt").write_text(("y" * 500 + "\n") * 1000)
    result = await read.run({"path": "wide.txt"}, ctx)
    shown = result.content.count("\ty")
    assert 150 < shown < 250 and len(result.content) <= 101_000
    assert f"offset={shown + 1}" in result.content.splitlines()[-1]


async def test_read_cuts_very_long_lines(ctx):
    (ctx.cwd / "min.js").write_text("z" * 50_000)
    result = await read.run({"path": "min.js"}, ctx)
    assert "[line cut, 50000 bytes]" in result.content and len(result.content) < 3000


async def test_read_path_relative_to_ctx_cwd_and_home_expanded(scratch):
    (scratch.proj / "sub").mkdir()
    (scratch.proj / "sub" / "a.txt").write_text("in the project\n")
    ctx = scratch.ctx(readable=(scratch.home,))
    assert "in the project" in (await read.run({"path": "sub/../sub/a.txt"}, ctx)).content
    assert "my notes" in (await read.run({"path": "~/notes.txt"}, ctx)).content


@pytest.mark.parametrize(
    "setup, path, message",
    [
        (lambda root: None, "absent.txt", "no such file: absent.txt"),
        (lambda root: (root / "dir").mkdir(), "dir", "dir is a directory"),
        (lambda root: (root / "bin").write_bytes(b"\x7fELF\x00\x01"), "bin", "binary"),
        (
            lambda root: (root / "a.txt").write_text("one\n"),
            "a.txt",
            "offset 5 is past the end of a.txt, which has 1 line",
        ),
    ],
)
async def test_read_errors(ctx, setup, path, message):
    setup(ctx.cwd)
    result = await read.run({"path": path, "offset": 5 if path == "a.txt" else 1}, ctx)
    assert result.is_error and result.content.startswith("error: ") and message in result.content


async def test_read_permission_denied(ctx, monkeypatch):
    (ctx.cwd / "secret").write_text("x")
    real_open = os.open

    def forbidden(path, *args, **kwargs):
        if str(path).endswith("secret"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(files.os, "open", forbidden)
    result = await read.run({"path": "secret"}, ctx)
    assert result.is_error and "permission denied: secret" in result.content


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
async def test_read_permission_denied_for_real(ctx):
    secret = ctx.cwd / "secret"
    secret.write_text("x")
    secret.chmod(0)
    result = await read.run({"path": "secret"}, ctx)
    assert result.is_error and "permission denied" in result.content


async def test_read_empty_file(ctx):
    (ctx.cwd / "empty").write_text("")
    result = await read.run({"path": "empty"}, ctx)
    assert not result.is_error and "empty" in result.content


# write_file


async def test_write_creates_parents_and_reports_size(ctx):
    result = await write.run({"path": "sub/dir/f.txt", "content": "héllo\nworld"}, ctx)
    assert result.content == "wrote 2 lines (12 bytes) to sub/dir/f.txt"
    assert (ctx.cwd / "sub/dir/f.txt").read_text() == "héllo\nworld"


async def test_write_overwrites_atomically_and_keeps_the_mode(ctx):
    target = ctx.cwd / "run.sh"
    target.write_text("old")
    target.chmod(0o755)
    await write.run({"path": "run.sh", "content": "new\n"}, ctx)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert sorted(p.name for p in ctx.cwd.iterdir()) == ["run.sh"], "no temp file left behind"


async def test_write_new_file_gets_umask_mode_not_tempfile_mode(ctx):
    await write.run({"path": "new.txt", "content": "x"}, ctx)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((ctx.cwd / "new.txt").stat().st_mode) == 0o666 & ~umask


async def test_write_through_a_symlink_keeps_the_link(ctx):
    (ctx.cwd / "real.txt").write_text("old")
    (ctx.cwd / "link.txt").symlink_to("real.txt")
    await write.run({"path": "link.txt", "content": "new"}, ctx)
    assert (ctx.cwd / "link.txt").is_symlink() and (ctx.cwd / "real.txt").read_text() == "new"


async def test_write_through_a_linked_directory_inside_the_project_lands_in_its_target(ctx):
    (ctx.cwd / "real").mkdir()
    (ctx.cwd / "link").symlink_to(ctx.cwd / "real")
    result = await write.run({"path": "link/new.txt", "content": "x"}, ctx)
    assert result.content == "wrote 1 line (1 bytes) to real/new.txt"
    assert (ctx.cwd / "real" / "new.txt").read_text() == "x" and (ctx.cwd / "link").is_symlink()


async def test_a_file_where_a_directory_should_be_is_one_line(ctx):
    (ctx.cwd / "plain").write_text("x")
    result = await write.run({"path": "plain/f.txt", "content": "x"}, ctx)
    assert result.content == "error: no such file: plain/f.txt (plain is not a directory)"


async def test_a_nul_byte_in_a_path_is_one_line(ctx):
    for tool, extra in ((write, {"content": "x"}), (read, {}), (patch, {"old": "a", "new": "b"})):
        result = await tool.run({"path": "a\0b", **extra}, ctx)
        assert result.is_error and "contains a NUL byte" in result.content and "\n" not in result.content


WRITE_TOO_BIG = """
import asyncio, resource, signal
from pathlib import Path
from hermeslite.tools.base import ToolContext
from hermeslite.tools.files import WriteFileTool
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
print(asyncio.run(WriteFileTool().run({"path": "big.txt", "content": "x" * 5000}, ToolContext(cwd=Path.cwd()))).content)
"""


def test_a_write_that_fails_half_way_is_one_line_and_leaves_no_temp_file(ctx):
    """The file size limit makes the kernel refuse the write after 1000 bytes, as a full disk would."""
    (ctx.cwd / "big.txt").write_text("before\n")
    done = subprocess.run([sys.executable, "-c", WRITE_TOO_BIG], cwd=ctx.cwd, capture_output=True, text=True)
    assert done.stdout == "error: cannot write big.txt: File too large\n", done.stderr
    assert sorted(p.name for p in ctx.cwd.iterdir()) == ["big.txt"]
    assert (ctx.cwd / "big.txt").read_text() == "before\n"


async def test_write_to_a_directory_is_an_error(ctx):
    (ctx.cwd / "d").mkdir()
    result = await write.run({"path": "d", "content": "x"}, ctx)
    assert result.is_error and "is a directory" in result.content


# patch


async def test_patch_replaces_once_and_shows_a_diff(ctx):
    (ctx.cwd / "m.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    result = await patch.run({"path": "m.py", "old": "return 1", "new": "return 10"}, ctx)
    assert not result.is_error
    assert result.content.startswith("patched m.py: replaced 1 occurrence(s)\n")
    assert "-    return 1" in result.content and "+    return 10" in result.content
    assert (ctx.cwd / "m.py").read_text() == "def f():\n    return 10\n\ndef g():\n    return 2\n"


async def test_patch_refuses_ambiguous_match(ctx):
    (ctx.cwd / "m.py").write_text("x = 1\ny = 1\nz = 1\n")
    result = await patch.run({"path": "m.py", "old": "= 1", "new": "= 2"}, ctx)
    assert result.is_error and "occurs 3 times" in result.content and "replace_all" in result.content
    assert (ctx.cwd / "m.py").read_text() == "x = 1\ny = 1\nz = 1\n"


async def test_patch_replace_all(ctx):
    (ctx.cwd / "m.py").write_text("x = 1\ny = 1\n")
    result = await patch.run({"path": "m.py", "old": "= 1", "new": "= 2", "replace_all": True}, ctx)
    assert "replaced 2 occurrence(s)" in result.content
    assert (ctx.cwd / "m.py").read_text() == "x = 2\ny = 2\n"


async def test_patch_diff_is_capped(ctx):
    (ctx.cwd / "m.txt").write_text("a\n" * 200)
    result = await patch.run({"path": "m.txt", "old": "a", "new": "b", "replace_all": True}, ctx)
    assert len(result.content.splitlines()) <= 42 and "more diff lines" in result.content


@pytest.mark.parametrize(
    "args, message",
    [
        ({"path": "m.py", "old": "", "new": "x"}, "old is empty"),
        ({"path": "m.py", "old": "nope", "new": "x"}, "not found in m.py"),
        ({"path": "absent.py", "old": "a", "new": "b"}, "no such file: absent.py"),
        ({"path": "m.py", "old": "same", "new": "same"}, "nothing to change"),
    ],
)
async def test_patch_errors(ctx, args, message):
    (ctx.cwd / "m.py").write_text("same\n")
    result = await patch.run(args, ctx)
    assert result.is_error and result.content.startswith("error: ") and message in result.content


async def test_patch_matches_crlf_files(ctx):
    (ctx.cwd / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await patch.run({"path": "w.txt", "old": "one\ntwo", "new": "1\n2"}, ctx)
    assert not result.is_error
    assert (ctx.cwd / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


# the boundary

TOOLS = [
    (write, {"content": "pwned\n"}, True),
    (patch, {"old": "my notes", "new": "pwned"}, True),
    (read, {}, False),
]


@pytest.mark.parametrize("tool, extra, writes", TOOLS, ids=["write_file", "patch", "read_file"])
@pytest.mark.parametrize("path", ["~/notes.txt", "../notes.txt", "{home}/notes.txt", "link/notes.txt"])
async def test_outside_the_boundary_is_refused_headless(scratch, tool, extra, writes, path):
    (scratch.proj / "link").symlink_to(scratch.home)  # inside the project, pointing out of it
    before = (scratch.home / "notes.txt").read_text()
    result = await tool.run({"path": path.format(home=scratch.home), **extra}, scratch.ctx("ask"))
    assert result.is_error and "no one can approve this " + ("write" if writes else "read") in result.content
    assert str(scratch.home / "notes.txt") in result.content, "the resolved path is named"
    assert "my notes" not in result.content
    assert (scratch.home / "notes.txt").read_text() == before


@pytest.mark.parametrize("tool, extra, writes", TOOLS, ids=["write_file", "patch", "read_file"])
@pytest.mark.parametrize("answer", [True, False])
async def test_outside_the_boundary_asks_and_obeys_the_answer(scratch, tool, extra, writes, answer):
    requests = []

    async def approver(request):
        requests.append(request)
        return answer

    result = await tool.run({"path": "~/notes.txt", **extra}, scratch.ctx("ask", approve=approver))
    (request,) = requests
    assert request.tool == tool.name and str(scratch.home / "notes.txt") in request.reason
    assert request.scope == f"{tool.name} {'writes' if writes else 'reads'} in {scratch.home}"
    changed = (scratch.home / "notes.txt").read_text() != "my notes\n"
    assert changed is (answer and writes)
    assert result.is_error is not answer
    if answer and not writes:
        assert "my notes" in result.content


async def test_deny_mode_refuses_outside_writes_and_allow_mode_does_them(scratch):
    denied = await write.run({"path": "~/new.txt", "content": "x"}, scratch.ctx("deny"))
    assert denied.is_error and "approval policy is deny" in denied.content
    assert not (scratch.home / "new.txt").exists()
    done = await write.run({"path": "~/new.txt", "content": "x"}, scratch.ctx("allow"))
    assert not done.is_error and (scratch.home / "new.txt").read_text() == "x"


async def test_writable_paths_need_no_approval(scratch):
    ctx = scratch.ctx("ask", writable=(scratch.home / "x",))
    result = await write.run({"path": "~/x/new.txt", "content": "ok"}, ctx)
    assert not result.is_error and (scratch.home / "x" / "new.txt").read_text() == "ok"


async def test_a_fifo_is_refused_at_once(ctx):
    os.mkfifo(ctx.cwd / "pipe")
    started = time.monotonic()
    result = await asyncio.wait_for(read.run({"path": "pipe"}, ctx), 5)
    assert time.monotonic() - started < 1
    assert result.is_error and "pipe is a FIFO (named pipe); only regular files can be read" in result.content
    patched = await asyncio.wait_for(patch.run({"path": "pipe", "old": "a", "new": "b"}, ctx), 5)
    assert patched.is_error and "FIFO" in patched.content


async def test_a_device_is_refused(ctx):
    ctx.approval_policy = "allow"  # /dev is outside the project
    result = await read.run({"path": "/dev/zero"}, ctx)
    assert result.is_error and "is a character device" in result.content


async def test_a_huge_single_line_file_is_read_in_bounded_memory(ctx):
    size = 40 << 20  # more than the 16 MB counting budget
    with open(ctx.cwd / "huge.min.js", "wb") as handle:
        for _ in range(size >> 20):
            handle.write(b"a" * (1 << 20))
    tracemalloc.start()
    try:
        result = await read.run({"path": "huge.min.js"}, ctx)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"peak {peak} bytes"
    lines = result.content.splitlines()
    assert lines[0] == "huge.min.js: lines 1-1 of at least 1 (counting stopped)"
    assert lines[1].startswith("     1\taaaa") and "…[line cut, more than " in lines[1] and len(lines[1]) < 2100
    assert "offset=2" in lines[-1]


async def test_lines_after_a_full_window_are_counted(ctx):
    (ctx.cwd / "many.txt").write_text("".join(f"{n}\n" for n in range(1, 5001)) + "last, no newline")
    result = await read.run({"path": "many.txt", "limit": 3}, ctx)
    assert result.content.splitlines()[0] == "many.txt: lines 1-3 of 5001"
    assert "[4998 more lines; call read_file with offset=4 to continue]" in result.content
    tail = await read.run({"path": "many.txt", "offset": 5001}, ctx)
    assert tail.content.splitlines()[1] == numbered(5001, "last, no newline")


async def test_patch_refuses_files_too_large_to_hold(ctx, monkeypatch):
    monkeypatch.setattr(files, "MAX_PATCH_BYTES", 100)
    (ctx.cwd / "big.txt").write_text("x" * 200)
    result = await patch.run({"path": "big.txt", "old": "x", "new": "y", "replace_all": True}, ctx)
    assert result.is_error and "larger than" in result.content and (ctx.cwd / "big.txt").read_text() == "x" * 200


# hermeslite's own files


@pytest.mark.parametrize("mode", ["ask", "auto", "allow"])
async def test_hermeslite_own_files_are_never_written(scratch, home, mode):
    """The data dir (trust list), the config dir and the package, even in writable_paths and with a yes."""
    asked = []

    async def yes(request):
        asked.append(request)
        return True

    data, config = home / "data", home / "config"
    data.mkdir(parents=True)
    config.mkdir()
    (data / "trusted_projects.json").write_text("{}\n")
    (scratch.proj / "link").symlink_to(data)
    package_probe = Path(files.__file__).parent / "written_by_a_tool.py"
    ctx = scratch.ctx(mode, approve=yes, writable=(home,))
    attempts = [
        (write, {"path": str(data / "trusted_projects.json"), "content": "forged"}),
        (patch, {"path": "link/trusted_projects.json", "old": "{}", "new": "forged"}),
        (write, {"path": str(config / "config.yaml"), "content": "tools:\n  approval: allow\n"}),
        (write, {"path": str(package_probe), "content": "x = 1\n"}),
    ]
    try:
        for tool, args in attempts:
            result = await tool.run(args, ctx)
            assert result.is_error and result.content.startswith("error: refused: "), result.content
            assert (
                "no tool may write there, and neither approval nor tools.writable_paths can allow it" in result.content
            )
            assert "\n" not in result.content
    finally:
        package_probe.unlink(missing_ok=True)
    assert asked == [], "the user is not asked what they cannot grant"
    assert (data / "trusted_projects.json").read_text() == "{}\n"
    assert not (config / "config.yaml").exists()
    assert sorted(p.name for p in data.iterdir()) == ["trusted_projects.json"]


async def test_reading_hermeslite_own_files_is_an_ordinary_read(scratch, home):
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.yaml").write_text("model:\n  name: x\n")
    result = await read.run({"path": str(home / "config" / "config.yaml")}, scratch.ctx("ask", readable=(home,)))
    assert not result.is_error and "name: x" in result.content
