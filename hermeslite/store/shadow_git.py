"""git, run on hermeslite's own shadow repository of a project and never on the user's.

File checkpoints are commits in a bare repository under the data dir whose
work tree is the project. Every git process gets its repository, work tree
and index from explicit variables, and nothing else from the environment or
the user's configuration: inherited `GIT_*` variables are dropped, the
system and global config files are not read, hooks, fsmonitor and filters
cannot run, and the project's `.gitattributes` cannot convert line endings
(an `info/attributes` of ours overrides them), so a snapshot holds the
exact bytes. git never descends into a directory named `.git`, so the
user's repository (index, refs, hooks, config, stash) is neither read as
content nor written.

Codex removed its checkpoints after git "ghost commits" made in the user's
own repository damaged users' indexes; a separate `GIT_DIR` cannot do that.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import struct
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from .errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: one process per project is assumed

GIT_MIN = (2, 26)  # `add --pathspec-from-file`
IDENTITY = ("hermeslite", "hermeslite@localhost")
TIMEOUT_S = 600.0  # a first snapshot of a big project hashes every file once
# Settings of the shadow repository itself. Command-line `-c` values, so a config file that
# went missing or was edited cannot turn any of them back on.
CONFIG = (
    "core.hooksPath=" + os.devnull,
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.fileMode=true",
    "core.quotePath=false",
    "core.excludesFile=" + os.devnull,  # not the user's global ignore file: only the project's and ours
    "core.attributesFile=" + os.devnull,
    "core.looseCompression=1",  # a snapshot is written fast; `gc` (pruning) packs it smaller later
    "gc.auto=0",
    # No reflogs: with a work tree git would log every HEAD move, and those entries keep each pruned
    # session's snapshots reachable, so `gc` could never delete them.
    "core.logAllRefUpdates=false",
    "maintenance.auto=false",
    "commit.gpgSign=false",
    "advice.addEmbeddedRepo=false",
    "safe.directory=*",  # the repository is ours; a project owned by another user must not stop it
)
# Highest-precedence attributes: nothing is converted on the way in or out, whatever the project's
# .gitattributes say (text=auto, eol, filter=lfs, ident, working-tree-encoding).
ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"


class CheckpointError(StoreError):
    """Checkpoints cannot work here (no git, an old git, a store that fails); `str()` is the line for the user."""


def find_git() -> str:
    """The git executable, or CheckpointError saying why checkpoints are off."""
    git = shutil.which("git")
    if git is None:
        raise CheckpointError("git is not installed")
    try:
        out = subprocess.run([git, "--version"], capture_output=True, check=True, timeout=30, env=_clean_env()).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise CheckpointError(f"git does not run ({exc})") from None
    found = re.search(rb"(\d+)\.(\d+)", out)
    version = (int(found[1]), int(found[2])) if found else (0, 0)
    if version < GIT_MIN:
        wanted = ".".join(map(str, GIT_MIN))
        raise CheckpointError(f"git {version[0]}.{version[1]} is too old (checkpoints need {wanted} or later)")
    return git


def _clean_env() -> dict[str, str]:
    """The environment without any `GIT_*` variable a parent set (a hook's GIT_DIR, a GIT_INDEX_FILE)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


class ShadowGit:
    """git processes on one shadow repository (`git_dir`) with the project as work tree."""

    def __init__(self, git: str, git_dir: Path, work_tree: Path) -> None:
        self.git = git
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.index = git_dir / "index"
        self._lock = threading.RLock()  # makes `locked` re-entrant: a restore holds it across its snapshots
        self._lock_fd: int | None = None
        self._lock_depth = 0
        self.env = {
            **_clean_env(),
            "GIT_DIR": str(git_dir),
            "GIT_WORK_TREE": str(work_tree),
            "GIT_INDEX_FILE": str(self.index),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_LITERAL_PATHSPECS": "1",  # a file named `*.py` is that file, not a glob
            "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_AUTHOR_NAME": IDENTITY[0],
            "GIT_AUTHOR_EMAIL": IDENTITY[1],
            "GIT_COMMITTER_NAME": IDENTITY[0],
            "GIT_COMMITTER_EMAIL": IDENTITY[1],
            "LC_ALL": "C",
            "LANGUAGE": "C",
        }

    def init(self) -> None:
        """Create the bare repository (no template: no sample hooks) with our attributes, once."""
        if (self.git_dir / "HEAD").exists():
            return
        self.git_dir.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        env = {k: v for k, v in self.env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
        try:
            subprocess.run(
                [self.git, "init", "--quiet", "--bare", "--template=", str(self.git_dir)],
                env=env,
                capture_output=True,
                check=True,
                timeout=60,
            )
        except subprocess.CalledProcessError as exc:
            raise CheckpointError(
                f"cannot create the checkpoint store in {self.git_dir}: {_first_line(exc.stderr)}"
            ) from None
        except (OSError, subprocess.SubprocessError) as exc:
            raise CheckpointError(f"cannot create the checkpoint store in {self.git_dir}: {exc}") from None
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(ATTRIBUTES, encoding="utf-8")
        self.run("symbolic-ref", "HEAD", "refs/hermeslite/head")

    def run(self, *args: str, stdin: bytes | None = None, ok: tuple[int, ...] = (0,), globs: bool = False) -> bytes:
        """Run `git <args>` and return its stdout; CheckpointError with git's own words when it fails.
        `globs`: for the one command that refuses literal pathspecs (check-ignore, which reads paths)."""
        env = {**self.env, "GIT_LITERAL_PATHSPECS": "0"} if globs else self.env
        try:
            done = subprocess.run(
                self._command(args),
                input=stdin,
                capture_output=True,
                env=env,
                cwd=self.work_tree,
                timeout=TIMEOUT_S,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise CheckpointError(f"git {args[0]} failed: {exc}") from None
        if done.returncode not in ok:
            raise CheckpointError(f"git {args[0]} failed: {_first_line(done.stderr) or f'exit {done.returncode}'}")
        return done.stdout

    def _command(self, args: tuple[str, ...]) -> list[str]:
        return [self.git, *(part for c in CONFIG for part in ("-c", c)), *args]

    def succeeds(self, *args: str) -> bool:
        """Whether `git <args>` exits 0 (a question such as "is this object here?")."""
        try:
            done = subprocess.run(
                self._command(args), capture_output=True, env=self.env, cwd=self.work_tree, timeout=TIMEOUT_S
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise CheckpointError(f"git {args[0]} failed: {exc}") from None
        return done.returncode == 0

    def write_exclude(self, patterns: list[str]) -> bool:
        """Our own ignore rules (`info/exclude`), beside the project's .gitignore files; rewritten only
        when they change, so git's caches keyed on the file stay valid. True when they changed."""
        path = self.git_dir / "info" / "exclude"
        text = "".join(f"{p}\n" for p in patterns)
        with contextlib.suppress(FileNotFoundError):
            if path.read_text(encoding="utf-8") == text:
                return False
        path.write_text(text, encoding="utf-8")
        return True

    def read_ref(self, name: str) -> str | None:
        """A ref's commit from the files backend (a loose ref, else packed-refs), without a process."""
        try:
            return (self.git_dir / name).read_text(encoding="ascii").strip() or None
        except (FileNotFoundError, NotADirectoryError):
            pass
        try:
            packed = (self.git_dir / "packed-refs").read_text(encoding="ascii")
        except FileNotFoundError:
            return None
        for line in packed.splitlines():
            sha, _, ref = line.partition(" ")
            if ref == name:
                return sha
        return None

    def index_signature(self) -> tuple[int, int, int] | None:
        """The index file's (mtime, size, inode): unchanged means no git process rewrote it."""
        try:
            info = os.stat(self.index)
        except FileNotFoundError:
            return None
        return (info.st_mtime_ns, info.st_size, info.st_ino)

    def index_entries(self) -> int:
        """How many files the index holds, from its header ("DIRC", version, count)."""
        try:
            with open(self.index, "rb") as handle:
                header = handle.read(12)
        except FileNotFoundError:
            return 0
        return struct.unpack(">I", header[8:12])[0] if len(header) == 12 and header[:4] == b"DIRC" else 0

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One process (and one thread) at a time on this repository: its index is shared by every session
        here, and a prune's `gc` removes objects a restore's preview may be reading. Re-entrant, so a
        restore can hold it across the snapshots it takes."""
        with self._lock:
            if self._lock_depth == 0 and fcntl is not None:
                fd = os.open(self.git_dir.parent / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except BaseException:
                    os.close(fd)
                    raise
                self._lock_fd = fd
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
                if self._lock_depth == 0 and self._lock_fd is not None:
                    os.close(self._lock_fd)  # closing drops the lock
                    self._lock_fd = None


def _first_line(data: bytes | None) -> str:
    text = (data or b"").decode("utf-8", "replace").strip()
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("hint:")]
    return lines[0].removeprefix("fatal: ").removeprefix("error: ") if lines else ""
