"""A ToolContext rooted in the test's own directory, and a scratch home for the safety tests."""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hermeslite.tools.base import Approver, ToolContext, deny_all
from hermeslite.tools.sandbox import sandbox_for
from hermeslite.tools.shell_policy import Boundary
from tests.tools.kernel_scratch import SCRATCH_ROOT, SECRETS, Home, outside_temp


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "project"
    root.mkdir()
    return ToolContext(cwd=root, terminal_timeout=10, output_limit=1000)


@dataclass
class Scratch:
    """A fake user: `home` with files in it, the project `proj` inside it, and a private temp dir.

    The temp dir is moved too, because the real one (where pytest puts
    tmp_path) is writable inside the sandbox and would hide every escape.
    """

    home: Path
    proj: Path
    tmp: Path

    def ctx(
        self,
        mode: str = "ask",
        *,
        approve: Approver = deny_all,
        sandbox: bool = True,
        sandbox_mode: str = "auto",
        writable: tuple[Path, ...] = (),
        readable: tuple[Path, ...] = (),
        network_allow: tuple[str, ...] = (),
    ) -> ToolContext:
        return ToolContext(
            cwd=self.proj,
            approve=approve,
            approval_policy=mode,
            terminal_timeout=20,
            output_limit=4000,
            boundary=Boundary(self.proj, self.home, (self.tmp, *writable)),
            sandbox=sandbox_for(sandbox_mode, [str(p) for p in writable], self.proj, network_allow)
            if sandbox
            else None,
            readable_paths=readable,
        )

    def snapshot(self) -> dict[str, tuple[int, bytes]]:
        """Every path under home outside the project, with its mode and content: what must not change."""
        seen = {}
        for path in sorted(self.home.rglob("*")):
            if path == self.proj or self.proj in path.parents:
                continue
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            seen[str(path.relative_to(self.home))] = (path.lstat().st_mode, data)
        return seen


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Scratch:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    proj = home / "proj"
    for folder in (home / "x" / "sub", proj, tmp):
        folder.mkdir(parents=True)
    (home / "x" / "keep.txt").write_text("precious\n")
    (home / "x" / "sub" / "deep.txt").write_text("deep\n")
    (home / "notes.txt").write_text("my notes\n")
    (proj / "main.py").write_text("print('hi')\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return Scratch(home=home, proj=proj, tmp=tmp)


@pytest.fixture
def outside(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    """A scratch user outside the system temp dir (see kernel_scratch), with secrets in the environment."""
    if not outside_temp(SCRATCH_ROOT):
        pytest.skip(f"the scratch root {SCRATCH_ROOT} is inside the temp dir; set HERMESLITE_TEST_SCRATCH")
    home = Home.make(re.sub(r"\W+", "_", request.node.name.removeprefix("test_"))[:40])  # socket paths stay short
    monkeypatch.setenv("HOME", str(home.home))
    monkeypatch.setenv("TMPDIR", str(home.tmp))
    for name, folder in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        monkeypatch.setenv(name, str(home.home / folder))
    monkeypatch.setattr(tempfile, "tempdir", str(home.tmp))
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    yield home
    shutil.rmtree(home.base, ignore_errors=True)


SCRATCH = Path(__file__).resolve().parents[2] / ".scratch"


@pytest.fixture
def outside_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder outside the system temp dir (in the checkout's `.scratch/`), removed afterwards.

    The temp dir is a writable root for the tools, so a home inside it would
    make a write that escaped into `~` look allowed; the temp dir itself stays
    the real one, as a user has it.
    """
    if SCRATCH.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve()):
        pytest.skip("the checkout is inside the system temp dir, so it has no folder outside it")
    SCRATCH.mkdir(exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="home-", dir=SCRATCH))
    monkeypatch.setenv("HOME", str(home))
    try:
        yield home
    finally:
        shutil.rmtree(home)
        with contextlib.suppress(OSError):  # another test's home is still there
            SCRATCH.rmdir()
