"""read_file, write_file and patch."""

import os
import stat

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
    assert "[line cut, 50000 chars]" in result.content and len(result.content) < 3000


async def test_read_path_relative_to_ctx_cwd_and_home_expanded(ctx, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "notes.txt").write_text("from home\n")
    result = await read.run({"path": "~/notes.txt"}, ctx)
    assert "from home" in result.content


@pytest.mark.parametrize("setup, path, message", [
    (lambda root: None, "absent.txt", "no such file: absent.txt"),
    (lambda root: (root / "dir").mkdir(), "dir", "dir is a directory"),
    (lambda root: (root / "bin").write_bytes(b"\x7fELF\x00\x01"), "bin", "binary"),
    (lambda root: (root / "a.txt").write_text("one\n"), "a.txt", "offset 5 is past the end of a.txt, which has 1 lines"),
])
async def test_read_errors(ctx, setup, path, message):
    setup(ctx.cwd)
    result = await read.run({"path": path, "offset": 5 if path == "a.txt" else 1}, ctx)
    assert result.is_error and result.content.startswith("error: ") and message in result.content


async def test_read_permission_denied(ctx, monkeypatch):
    (ctx.cwd / "secret").write_text("x")

    def forbidden(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "open", forbidden, raising=False)
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


@pytest.mark.parametrize("args, message", [
    ({"path": "m.py", "old": "", "new": "x"}, "old is empty"),
    ({"path": "m.py", "old": "nope", "new": "x"}, "not found in m.py"),
    ({"path": "absent.py", "old": "a", "new": "b"}, "no such file: absent.py"),
    ({"path": "m.py", "old": "same", "new": "same"}, "nothing to change"),
])
async def test_patch_errors(ctx, args, message):
    (ctx.cwd / "m.py").write_text("same\n")
    result = await patch.run(args, ctx)
    assert result.is_error and result.content.startswith("error: ") and message in result.content


async def test_patch_matches_crlf_files(ctx):
    (ctx.cwd / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await patch.run({"path": "w.txt", "old": "one\ntwo", "new": "1\n2"}, ctx)
    assert not result.is_error
    assert (ctx.cwd / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"
