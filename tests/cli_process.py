"""`hermeslite` as a user runs it: a real process, with its own HERMESLITE_HOME, pointed at a test server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hermeslite.store.sessions import SessionStore
from tests.patience import patience
from tests.server import MODEL, ScriptedServer


def env_for(home: Path) -> dict[str, str]:
    """This test's environment (tests/conftest.py has already removed provider keys and config overrides)
    with `home` as HERMESLITE_HOME."""
    return {**os.environ, "HERMESLITE_HOME": str(home)}


def hermeslite(
    args: list[str], home: Path, cwd: Path, *, env: dict[str, str] | None = None, **kw
) -> subprocess.CompletedProcess:
    """Run `python -m hermeslite *args` to completion, capturing its output as text; `env` replaces the
    environment `env_for(home)` makes. It is given up after two minutes on an idle machine, longer on a
    loaded one (tests/patience.py)."""
    return subprocess.run(
        [sys.executable, "-m", "hermeslite", *args],
        cwd=cwd,
        env=env_for(home) if env is None else env,
        capture_output=True,
        text=True,
        timeout=patience(120),
        **kw,
    )


def model_args(server: ScriptedServer) -> list[str]:
    """The command-line flags that point hermeslite at `server`."""
    return ["--model", MODEL, "--api-base", server.base_url]


def sessions_db(home: Path) -> SessionStore:
    """The session store a process run with `home` writes."""
    return SessionStore(home / "data" / "sessions.db")
