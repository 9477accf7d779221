"""Where hermeslite keeps its files on this machine.

The platform's conventions (XDG on Linux, ~/Library on macOS, AppData on
Windows) come from platformdirs. Setting `HERMESLITE_HOME` puts every directory
under one root instead, so tests, portable installs and throwaway experiments
never touch the real user's files. The environment is read on every call, not
at import, so a changed `HERMESLITE_HOME` takes effect at once, and nothing is
created until a caller asks for it with `ensure_dir`.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

APP_NAME = "hermeslite"
HOME_ENV = "HERMESLITE_HOME"


def _home() -> Path | None:
    """The `HERMESLITE_HOME` root, absolute, or None when unset or empty."""
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser().absolute() if value else None


def _user_dir(kind: str) -> Path:
    """`$HERMESLITE_HOME/<kind>` when the override is set, else the platform's user dir of that kind."""
    home = _home()
    if home is not None:
        return home / kind
    return Path(getattr(PlatformDirs(APP_NAME, appauthor=False), f"user_{kind}_path"))


def config_dir() -> Path:
    """User settings (`config.yaml`)."""
    return _user_dir("config")


def data_dir() -> Path:
    """Things the user would miss if deleted: sessions, MEMORY.md."""
    return _user_dir("data")


def state_dir() -> Path:
    """Things worth keeping across runs but not precious: logs, history."""
    return _user_dir("state")


def cache_dir() -> Path:
    """Things that can be rebuilt at any time: downloaded models, token tables."""
    return _user_dir("cache")


def ensure_dir(path: Path) -> Path:
    """Create `path` (and parents) on first use and return it.

    Owner-only permissions on the leaf, because transcripts and memory can
    hold secrets the user pasted into a chat.
    """
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path
