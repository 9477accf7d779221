"""hermeslite's own files: no tool may write them, whatever `tools.writable_paths` says.

A command or file tool that could write the config dir, the data dir (the
sessions, MEMORY.md, the list of trusted projects) or the state dir could
change what the next session trusts and sends where. One that could write the
code that starts the sandbox (the `hermeslite` package and the Python that
runs its launcher) could turn the sandbox off for the next command. The
terminal sandbox mounts these read-only for commands; the file tools refuse
them. Both ask `protected_paths()`, so they cannot disagree.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

import hermeslite
from hermeslite.paths import config_dir, data_dir, state_dir
from hermeslite.trust import TrustStore

# The `hermeslite` package itself, which holds the sandbox launcher.
PACKAGE_DIR = Path(os.path.realpath(hermeslite.__file__)).parent


def launcher_python() -> Path:
    """The interpreter the sandbox launcher runs on: the base Python behind a venv, resolved.

    Not the venv's own `python`: with `-I` a venv interpreter still reads its
    `pyvenv.cfg`, a file inside the venv that may sit in the project.
    """
    python = Path(os.path.realpath(sys.executable))
    venv = Path(os.path.realpath(sys.prefix))
    if sys.prefix != sys.base_prefix and python.is_relative_to(venv):  # a venv made with --copies
        return Path(
            os.path.realpath(Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}")
        )
    return python


def interpreter_paths() -> tuple[Path, ...]:
    """What the launcher's interpreter loads: its binary's folder and its installation prefix (stdlib)."""
    python = launcher_python()
    return _unique((python.parent, Path(os.path.realpath(sys.base_prefix))))


def protected_paths(extra: Iterable[Path] = ()) -> tuple[Path, ...]:
    """Resolved paths (folders, or single files in `extra`) that tools must never write; some may not exist yet.

    `extra` adds paths chosen by the settings, such as `memory.dir`.
    """
    own = (config_dir(), data_dir(), state_dir(), TrustStore().path.parent, PACKAGE_DIR)
    return _unique((*(Path(os.path.realpath(p)) for p in (*own, *extra)), *interpreter_paths()))


def is_protected(path: Path, protected: Iterable[Path] | None = None) -> bool:
    """`path` (resolved) is one of the protected paths or inside one."""
    roots = protected_paths() if protected is None else protected
    return any(path == root or path.is_relative_to(root) for root in roots)


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))
