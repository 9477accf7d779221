"""Every test runs in its own HERMESLITE_HOME and working directory, so none reads the real user's files."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The HERMESLITE_HOME of this test; not created until something needs it."""
    return tmp_path / "home"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The current directory of this test, where ./hermeslite.yaml is looked for."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def _isolate_user_files(home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point every user directory at tmp, drop any config override, and leave the repo's cwd."""
    monkeypatch.setenv("HERMESLITE_HOME", str(home))
    monkeypatch.delenv("HERMESLITE_CONFIG", raising=False)
    monkeypatch.chdir(workdir)


from tests.fake_anthropic import fake_anthropic  # noqa: E402,F401  (fixture for every test package)
from tests.server import scripted_server  # noqa: E402,F401  (fixture for every test package)
