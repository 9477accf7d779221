"""Real projects on disk for the checkpoint tests: a git repository with work in progress, a plain
folder, and exact pictures of a tree (bytes, modes, links) to compare before and after."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "user",
    "GIT_AUTHOR_EMAIL": "user@example.com",
    "GIT_COMMITTER_NAME": "user",
    "GIT_COMMITTER_EMAIL": "user@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def write(path: Path, data: bytes | str, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if mode is not None:
        os.chmod(path, mode)
    return path


def plain_project(root: Path) -> Path:
    """Files of every kind a restore must get exactly right."""
    write(root / "src/app.py", "def main():\n    return 1\n")
    write(root / "notes.txt", b"line one\r\nline two\r\n")  # CRLF, with text=auto below
    write(root / ".gitattributes", "* text=auto\n")
    write(root / "secret.env", "TOKEN=abc\n", 0o600)
    write(root / "run.sh", "#!/bin/sh\necho hi\n", 0o755)
    write(root / "data.bin", bytes(range(256)) * 4)
    os.symlink("notes.txt", root / "link-to-notes")
    write(root / ".gitignore", "*.log\nbuild/\n")
    write(root / "debug.log", "ignored, never snapshotted\n")
    write(root / "build/out.o", "ignored folder\n")
    return root


def git_project(root: Path) -> Path:
    """A git repository with a commit, a staged change, an unstaged change, an untracked file and a stash."""
    plain_project(root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    write(root / "stashed.txt", "to stash\n")
    git(root, "add", "stashed.txt")
    git(root, "stash", "-q")
    write(root / "staged.txt", "staged\n")
    git(root, "add", "staged.txt")
    write(root / "src/app.py", "def main():\n    return 2  # unstaged\n")
    write(root / "untracked.txt", "not added\n")
    return root


def tree_state(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every entry under `root` but .git folders: path -> (mode, bytes or link target); folders too."""
    out: dict[str, tuple[int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*files, *dirs]:
            path = Path(folder) / name
            info = os.lstat(path)
            rel = str(path.relative_to(root))
            if stat.S_ISLNK(info.st_mode):
                out[rel] = (info.st_mode, os.readlink(path).encode())
            elif stat.S_ISDIR(info.st_mode):
                out[rel + "/"] = (info.st_mode, b"")
            else:
                out[rel] = (info.st_mode, path.read_bytes())
    return out


def dir_hash(path: Path) -> str:
    """A hash of a whole folder: every path, mode and byte (the user's .git before and after)."""
    digest = hashlib.sha256()
    for folder, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for name in sorted(files):
            entry = Path(folder) / name
            info = os.lstat(entry)
            digest.update(str(entry.relative_to(path)).encode() + oct(info.st_mode).encode())
            digest.update(os.readlink(entry).encode() if stat.S_ISLNK(info.st_mode) else entry.read_bytes())
        for name in dirs:
            digest.update(str((Path(folder) / name).relative_to(path)).encode() + b"/")
    return digest.hexdigest()


def changed(before: dict, after: dict) -> dict[str, tuple]:
    """What differs between two tree states: path -> (before, after)."""
    return {k: (before.get(k), after.get(k)) for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)}
