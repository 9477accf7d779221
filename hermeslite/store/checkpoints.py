"""Where a project's file checkpoints live, and opening them.

Each project (a resolved working directory) has its own shadow repository
under the data dir, `checkpoints/<hash of the path>/`, beside the sessions
database, with a `project` file naming the folder for whoever looks. The
turn log that points into it is in the sessions database (turn_log.py).
A home folder or the file-system root is never snapshotted: that is every
file the user has, not a project.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from hermeslite.paths import cache_dir, config_dir, data_dir, state_dir

from .shadow_git import CheckpointError, ShadowGit, find_git
from .shadow_repo import Limits, ShadowRepo

FOLDER = "checkpoints"
PRUNE_EVERY_S = 86_400


def store_dir(project: Path) -> Path:
    """The folder holding `project`'s shadow repository."""
    key = hashlib.sha256(str(project).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return data_dir() / FOLDER / key


def open_repo(project: Path, limits: Limits) -> ShadowRepo:
    """The shadow repository of `project` (created on first use); CheckpointError saying why not."""
    project = project.resolve()
    if project == Path.home().resolve():
        raise CheckpointError("hermeslite runs in your home folder, which is not snapshotted (start it in a project)")
    if project.parent == project:
        raise CheckpointError("hermeslite runs in the root folder, which is not snapshotted (start it in a project)")
    git = find_git()
    folder = store_dir(project)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        (folder / "project").write_text(f"{project}\n", encoding="utf-8", errors="surrogateescape")
        own = (data_dir(), config_dir(), state_dir(), cache_dir())
        return ShadowRepo(ShadowGit(git, folder / "git", project), limits, own)
    except OSError as exc:
        raise CheckpointError(f"cannot write the checkpoint store in {folder}: {exc.strerror or exc}") from None


def prune_due(repo: ShadowRepo) -> bool:
    """Whether a day has passed since this store was last pruned; marks it pruned now when so."""
    stamp = repo.git.git_dir.parent / "pruned"
    try:
        if time.time() - stamp.stat().st_mtime < PRUNE_EVERY_S:
            return False
    except FileNotFoundError:
        pass
    stamp.touch()
    return True
