"""The file tools against a program that swaps a project directory and a link to ~/.ssh in a loop.

Issue 16's race: `d` is a real directory in the project and `l` a symlink to
`~/.ssh`; a swapper exchanges the two names with renameat2(RENAME_EXCHANGE)
as fast as it can while `write_file d/authorized_keys` and `patch` run. Each
call must either write the project's file or fail with one line; no byte
may land in `~/.ssh` and no temp file may be left anywhere. The home is
outside the system temp dir, where a user's home is.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hermeslite.tools import search
from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.files import PatchTool, ReadFileTool, WriteFileTool
from hermeslite.tools.search import SearchFilesTool
from hermeslite.tools.shell_policy import Boundary
from tests.cli_process import hermeslite, model_args
from tests.envelope import unwrapped
from tests.server import MODEL, Reply, ScriptedServer

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"),
    reason="the swapper calls renameat2 by its Linux syscall number (x86_64 and aarch64 only)",
)

SWAPPER = Path(__file__).with_name("swapper.py")
SECRET = "ssh-ed25519 AAAAC3 alpha beta the-user's-own-key\n"
PROJECT_FILE = "alpha in the project\n"
HAVE_RG = shutil.which("rg") is not None
CALLS = 350  # write_file and patch calls; read_file calls come on top


def lay_out(home: Path) -> Path:
    """~/.ssh/authorized_keys, and a project whose `d` holds a file of the same name and `l` links to ~/.ssh."""
    ssh = home / ".ssh"
    ssh.mkdir(mode=0o700)
    (ssh / "authorized_keys").write_text(SECRET)
    proj = home / "proj"
    (proj / "d").mkdir(parents=True)
    (proj / "d" / "authorized_keys").write_text(PROJECT_FILE)
    (proj / "l").symlink_to(ssh)
    return proj


def outside(home: Path, proj: Path) -> dict[str, tuple[int, int, bytes]]:
    """Everything under home but outside the project: mode, inode and bytes, which must not change."""
    seen = {}
    for path in sorted(home.rglob("*")):
        if path == proj or proj in path.parents:
            continue
        info = path.lstat()
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        seen[str(path.relative_to(home))] = (info.st_mode, info.st_ino, data)
    return seen


def temp_files(*roots: Path) -> list[Path]:
    return [path for root in roots for path in root.rglob("*.tmp")]


@contextmanager
def swapping(proj: Path, first: str = "d", second: str = "l") -> Iterator[list[int]]:
    """The swapper exchanging two names in `proj`, running once its first swap is done; yields a list
    that gets its swap count."""
    proc = subprocess.Popen(
        [sys.executable, str(SWAPPER), first, second],
        cwd=proj,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    swaps: list[int] = []
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n", proc.stderr.read() if proc.stderr else ""
        yield swaps
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        swaps.append(int(out.strip()))


def call(i: int) -> tuple[str, dict[str, object]]:
    """Call `i` of the run: mostly writes, every third a patch that swaps alpha and beta either way."""
    if i % 3 == 2:
        old, new = ("alpha", "beta") if i % 2 else ("beta", "alpha")
        return "patch", {"path": "d/authorized_keys", "old": old, "new": new, "replace_all": True}
    return "write_file", {"path": "d/authorized_keys", "content": f"alpha {i}\n"}


def check_results(results: list[tuple[str, str, bool]]) -> None:
    """Each result is a success naming the project file, or one error line without exception text."""
    for tool, content, is_error in results:
        assert SECRET.strip() not in content, "the user's key reached a result"
        if not is_error:
            expected = {"write_file": "wrote ", "patch": "patched d/authorized_keys", "read_file": "d/authorized_keys:"}
            assert content.startswith(expected[tool]), content
            continue
        assert content.startswith("error: ") and "\n" not in content, content
        assert not any(word in content for word in ("Traceback", "Error:", "[Errno")), content


def check_disk(home: Path, proj: Path, before: dict[str, tuple[int, int, bytes]]) -> None:
    assert outside(home, proj) == before, "something outside the project changed"
    assert (home / ".ssh" / "authorized_keys").read_text() == SECRET
    assert temp_files(home) == []
    (real,) = [proj / name for name in ("d", "l") if not (proj / name).is_symlink()]
    final = (real / "authorized_keys").read_text()
    assert final.startswith(("alpha", "beta")) and SECRET not in final


async def test_write_file_and_patch_never_follow_a_swapped_link(outside_home: Path) -> None:
    proj = lay_out(outside_home)
    before = outside(outside_home, proj)
    ctx = ToolContext(cwd=proj, boundary=Boundary(proj, outside_home, (Path(tempfile.gettempdir()),)))
    tools = {tool.name: tool for tool in (WriteFileTool(), PatchTool(), ReadFileTool())}
    results: list[tuple[str, str, bool]] = []
    with swapping(proj) as swaps:
        for i in range(CALLS):
            name, args = call(i)
            if i % 7 == 0:
                name, args = "read_file", {"path": "d/authorized_keys"}
            result: ToolResult = await tools[name].run(args, ctx)
            results.append((name, result.content, result.is_error))
    assert swaps[0] > 0
    check_results(results)
    check_disk(outside_home, proj, before)
    # How the calls split between written, refused and "changed" depends on the scheduler; once the
    # swapper has stopped, a write through the real directory's current name works.
    (real,) = [name for name in ("d", "l") if not (proj / name).is_symlink()]
    after = await tools["write_file"].run({"path": f"{real}/authorized_keys", "content": "alpha after\n"}, ctx)
    assert after.content == f"wrote 1 line (12 bytes) to {real}/authorized_keys"


async def test_read_file_never_follows_a_file_swapped_for_a_link(outside_home: Path) -> None:
    """The last component swapped: `f` a project file, `g` a link to ~/.ssh/authorized_keys."""
    proj = lay_out(outside_home)
    (proj / "f").write_text(PROJECT_FILE)
    (proj / "g").symlink_to(outside_home / ".ssh" / "authorized_keys")
    ctx = ToolContext(cwd=proj, boundary=Boundary(proj, outside_home, (Path(tempfile.gettempdir()),)))
    results = []
    with swapping(proj, "f", "g") as swaps:
        for _ in range(CALLS):
            result = await ReadFileTool().run({"path": "f"}, ctx)
            results.append(result)
    assert swaps[0] > 0
    assert all(r.content.startswith("f: lines 1-1 of 1") or r.content.count("\n") == 0 for r in results)
    assert not any("the-user's-own-key" in r.content for r in results)
    assert all(r.is_error for r in results if not r.content.startswith("f: lines"))


def newest_results(messages: list[dict]) -> list[tuple[str, str, bool]]:
    """(tool name, result, is error) for each call of the last assistant message: what this request answers."""
    at = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    names = {c["id"]: c["function"]["name"] for c in messages[at]["tool_calls"]}
    results = [(names[m["tool_call_id"]], unwrapped(m["content"])) for m in messages[at + 1 :]]
    return [(name, text, text.startswith("error: ")) for name, text in results]


def test_headless_replies_of_a_hundred_writes_race_a_swapper(
    scripted_server: ScriptedServer, outside_home: Path, home: Path, tmp_path: Path
) -> None:
    """As the issue ran it: `hermeslite -p`, an obedient model sending 100 file calls a reply."""
    config = tmp_path / "config.yaml"
    # No compaction: every reply answers a tool turn. The window belongs to the model the config names.
    config.write_text(f"model:\n  name: {MODEL}\n  context_window: 1000000\n")
    proj = lay_out(outside_home)
    before = outside(outside_home, proj)
    per_reply = 100
    replies = [
        Reply.tool_calls([call(i) for i in range(start, min(start + per_reply, CALLS))])
        for start in range(0, CALLS, per_reply)
    ]
    scripted_server.enqueue(*replies, Reply.text("done"))
    with swapping(proj) as swaps:
        done = hermeslite(["-p", "set up the keys", "--config", str(config), *model_args(scripted_server)], home, proj)
    assert done.returncode == 0, done.stderr
    assert swaps[0] > 0
    assert "Traceback" not in done.stderr
    results = [r for request in scripted_server.requests[1:] for r in newest_results(request["messages"])]
    assert len(results) == CALLS
    check_results(results)
    check_disk(outside_home, proj, before)


@pytest.fixture(params=["python", pytest.param("rg", marks=pytest.mark.skipif(not HAVE_RG, reason="rg not installed"))])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(search.shutil, "which", lambda name: None)
    return request.param


@pytest.mark.parametrize("where", ["d", "."])
async def test_search_files_never_follows_a_swapped_link(outside_home: Path, backend: str, where: str) -> None:
    """search_files in `d` (the swapped directory itself) or in the whole project while `d` is swapped."""
    if backend == "rg" and where == ".":
        pytest.skip("ripgrep walks a tree by name; only the root it is handed is held open (docs/safety.md)")
    proj = lay_out(outside_home)
    ctx = ToolContext(cwd=proj, boundary=Boundary(proj, outside_home, (Path(tempfile.gettempdir()),)))
    results = []
    with swapping(proj) as swaps:
        for _ in range(CALLS // 5):
            results.append(await SearchFilesTool().run({"pattern": "alpha", "path": where}, ctx))
    assert swaps[0] > 0
    assert not any("the-user's-own-key" in r.content for r in results)
    assert all(r.content.count("\n") == 0 for r in results if r.is_error)
    assert all("alpha in the project" in r.content for r in results if not r.is_error and "1 match" in r.content)
    (real,) = [name for name in ("d", "l") if not (proj / name).is_symlink()]
    after = await SearchFilesTool().run({"pattern": "alpha", "path": real}, ctx)
    assert after.content == f"{real}/authorized_keys:1:alpha in the project\n1 match"
