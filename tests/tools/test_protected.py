"""The paths no tool may write: hermeslite's config, data and state, its package and its Python."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import hermeslite
from hermeslite.tools.protected import is_protected, launcher_python, protected_paths


def test_the_config_data_and_state_dirs_follow_hermeslite_home(home: Path):
    protected = protected_paths()
    for kind in ("config", "data", "state"):
        assert Path(os.path.realpath(home / kind)) in protected
    assert is_protected(Path(os.path.realpath(home / "data" / "trusted_projects.json")))


def test_the_package_and_the_launcher_python_are_protected():
    package = Path(os.path.realpath(hermeslite.__file__)).parent
    assert is_protected(package / "tools" / "landlock.py")
    assert is_protected(launcher_python())
    assert is_protected(Path(os.path.realpath(os.__file__))), "the stdlib the launcher imports"


def test_the_launcher_python_is_not_a_venv_interpreter():
    python = launcher_python()
    assert python.is_file() and os.access(python, os.X_OK)
    assert not (python.parent.parent / "pyvenv.cfg").exists()
    assert python.samefile(os.path.realpath(sys.executable)) or sys.prefix != sys.base_prefix


def test_extra_paths_and_nothing_else(tmp_path: Path):
    memory = tmp_path / "memory"
    assert is_protected(memory / "MEMORY.md", protected_paths([memory]))
    assert not is_protected(tmp_path / "project" / "main.py")
