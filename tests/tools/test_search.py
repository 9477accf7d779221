"""search_files through ripgrep (when installed) and through the pure-Python fallback, which must agree."""

import asyncio
import os
import shutil
import time
from pathlib import Path

import pytest

from hermeslite.tools import search, search_worker
from hermeslite.tools.search import SearchFilesTool

tool = SearchFilesTool()
HAVE_RG = shutil.which("rg") is not None


@pytest.fixture(params=["python", pytest.param("rg", marks=pytest.mark.skipif(not HAVE_RG, reason="rg not installed"))])
def backend(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr(search.shutil, "which", lambda name: None)
    return request.param


@pytest.fixture
def tree(ctx):
    root = ctx.cwd
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    return os.getcwd()\n")
    (root / "src" / "util.py").write_text("def helper():\n    pass\n")
    (root / "README.md").write_text("Run main() to start.\n")
    for skipped in (".git", "node_modules", ".venv", "__pycache__"):
        (root / skipped).mkdir()
        (root / skipped / "x.py").write_text("def main(): hidden\n")
    (root / "blob.bin").write_bytes(b"def main\x00binary")
    return root


async def find(ctx, **args):
    result = await tool.run(args, ctx)
    return result, result.content.splitlines()


async def test_matches_are_path_line_text_with_a_count(ctx, tree, backend):
    result, lines = await find(ctx, pattern=r"def \w+\(")
    assert not result.is_error
    assert lines == ["src/app.py:3:def main():", "src/util.py:1:def helper():", "2 matches"]


async def test_glob_filters_files(ctx, tree, backend):
    _, lines = await find(ctx, pattern="main", glob="*.md")
    assert lines == ["README.md:1:Run main() to start.", "1 match"]


async def test_path_narrows_the_search(ctx, tree, backend):
    _, lines = await find(ctx, pattern="def", path="src/util.py")
    assert lines == ["src/util.py:1:def helper():", "1 match"]
    _, lines = await find(ctx, pattern="os", path="src")
    assert lines[-1] == "2 matches" and all(line.startswith("src/app.py:") for line in lines[:-1])


async def test_max_results_limits_what_is_shown(ctx, backend):
    (ctx.cwd / "many.txt").write_text("hit\n" * 7)
    _, lines = await find(ctx, pattern="hit", max_results=3)
    assert lines == ["many.txt:1:hit", "many.txt:2:hit", "many.txt:3:hit", "7 matches (showing first 3)"]


async def test_long_lines_are_clipped(ctx, backend):
    (ctx.cwd / "wide.txt").write_text("needle " + "x" * 1000 + "\n")
    _, lines = await find(ctx, pattern="needle")
    assert len(lines[0]) < 230 and lines[0].endswith("…")


async def test_no_matches(ctx, tree, backend):
    result, lines = await find(ctx, pattern="absent_symbol_42")
    assert lines == ["0 matches"] and not result.is_error


async def test_invalid_regex_is_an_error(ctx, tree, backend):
    result, _ = await find(ctx, pattern="(unclosed")
    assert result.is_error and result.content.startswith("error: ") and "regex" in result.content


async def test_missing_path_is_an_error(ctx, backend):
    result, _ = await find(ctx, pattern="x", path="nowhere")
    assert result.is_error and "no such file: nowhere" in result.content


@pytest.mark.parametrize(
    "glob, path, expected",
    [
        ("*.py", "a/b/c.py", True),
        ("*.py", "c.txt", False),
        ("src/**/*.py", "src/a/b.py", True),
        ("**/*.py", "top.py", True),
        ("!*.py", "c.py", False),
        ("!*.py", "c.md", True),
    ],
)
def test_glob_semantics(glob, path, expected):
    assert search_worker.glob_matches(glob, path) is expected


CATASTROPHIC = "(a+)+$"  # backtracks 2^n times on n a's followed by something else


def workers() -> list[int]:
    """Live search worker processes started by this test process."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = next((line.split()[1] for line in status.splitlines() if line.startswith("PPid:")), "")
        if ppid == str(os.getpid()) and b"search_worker" in cmdline and "State:\tZ" not in status:
            found.append(int(entry.name))
    return found


@pytest.fixture
def backtracking(ctx, monkeypatch):
    monkeypatch.setattr(search.shutil, "which", lambda name: None)
    (ctx.cwd / "trap.txt").write_text("a" * 40 + "!\n")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see child processes")
async def test_a_catastrophic_regex_ends_with_an_error_and_its_worker_is_killed(ctx, backtracking, monkeypatch):
    monkeypatch.setattr(search, "SEARCH_TIMEOUT", 1.5)
    start = time.monotonic()
    result, _ = await find(ctx, pattern=CATASTROPHIC)
    assert time.monotonic() - start < 5
    assert result.is_error and "stopped after 1.5 s" in result.content and "(a+)+" in result.content
    assert workers() == []


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see child processes")
async def test_cancelling_a_search_stops_the_work_promptly(ctx, backtracking):
    task = asyncio.create_task(tool.run({"pattern": CATASTROPHIC}, ctx))
    await asyncio.sleep(1.0)
    assert len(workers()) == 1, "the search runs in its own process"
    task.cancel()
    start = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - start < 1
    assert workers() == []
    cpu = time.process_time()
    await asyncio.sleep(0.5)
    assert time.process_time() - cpu < 0.25, "nothing in this process keeps matching after the cancel"


async def test_searching_outside_the_project_is_refused_headless(scratch):
    from hermeslite.tools.search import SearchFilesTool

    result = await SearchFilesTool().run({"pattern": "notes", "path": "~"}, scratch.ctx("ask"))
    assert result.is_error and "no one can approve this read" in result.content
    assert "my notes" not in result.content
    allowed = await SearchFilesTool().run(
        {"pattern": "notes", "path": "~"}, scratch.ctx("ask", readable=(scratch.home,))
    )
    assert "my notes" in allowed.content


async def test_a_linked_directory_inside_the_project_is_searched_under_the_name_given(ctx, tree, backend):
    (ctx.cwd / "lib").symlink_to(ctx.cwd / "src")
    _, lines = await find(ctx, pattern="helper", path="lib")
    assert lines == ["lib/util.py:1:def helper():", "1 match"]


async def test_a_fifo_is_not_searched(ctx, backend):
    os.mkfifo(ctx.cwd / "pipe")
    result = await asyncio.wait_for(tool.run({"pattern": "x", "path": "pipe"}, ctx), 10)
    assert result.content == "error: pipe is not a regular file or a directory; nothing to search"
