"""The boundary a command is judged against, and the verdict it gets.

These types are the policy's whole interface: the terminal tool, the approval
modes and the file tools all speak them, so they stay small and stable.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path


def real_path(path: str | os.PathLike[str]) -> Path:
    """`path` made absolute with `..` applied and symlinks followed as far as they exist.

    A symlink loop or a name the OS rejects (an embedded NUL) cannot name a real
    file, so it falls back to the lexical form instead of raising.
    """
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.normpath(os.path.abspath(path)))


def expand_home(word: str, home: Path) -> str:
    """`~`, `~/x`, `$HOME/x` and `${HOME}/x` with the home directory written out."""
    for prefix in ("~", "$HOME", "${HOME}"):
        if word == prefix or word.startswith(prefix + "/"):
            return str(home) + word[len(prefix) :]
    return word


@dataclass(frozen=True)
class Boundary:
    """Where tools may write without asking: the working directory and a few allowed roots."""

    cwd: Path  # resolved working directory
    home: Path  # the user's home ($HOME), resolved
    writable: tuple[Path, ...] = ()  # other resolved roots where writes are allowed (temp dir, tools.writable_paths)
    # The environment commands run with: `$TMPDIR/x` is judged where it really points. A variable
    # not in it (or set by the command line itself to something unknown) is never assumed inside.
    env: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        # Callers are asked for resolved paths; resolving again costs little and keeps
        # a symlinked temp dir (macOS /tmp) from turning every write into an escape.
        object.__setattr__(self, "cwd", real_path(self.cwd))
        object.__setattr__(self, "home", real_path(self.home))
        object.__setattr__(self, "writable", tuple(real_path(p) for p in self.writable))

    def resolve(self, word: str, cwd: Path | None = None) -> Path:
        """Expand `~` / `$HOME` / `${HOME}`, make absolute against `cwd` (default the
        working directory), apply `..` and follow symlinks as far as they exist."""
        return real_path(Path(cwd or self.cwd) / expand_home(word, self.home))

    def allows_write(self, path: Path) -> bool:
        """Inside the working directory or one of the writable roots (after resolving)."""
        return self.contains(real_path(path))

    def contains(self, resolved: Path) -> bool:
        """`resolved` (already resolved, so no symlink is followed again) is inside a root."""
        return any(resolved.is_relative_to(root) for root in self.roots)

    @property
    def roots(self) -> tuple[Path, ...]:
        return (self.cwd, *self.writable)


class Risk(enum.IntEnum):
    """How bad a command can be; ordered, so the worst over a command line is `max`."""

    ORDINARY = 0  # reads, or writes only inside the boundary: runs in every mode
    DESTRUCTIVE = 1  # hard-to-undo damage inside the boundary (recursive delete, git reset --hard, ...)
    OPAQUE = 2  # code the policy cannot read (python -c, `| sh` of local text, eval "$x")
    ESCAPE = 3  # writes, deletes, moves, chmods outside the boundary (what the sandbox blocks)
    UNCONTAINED = 4  # harm no filesystem sandbox stops: force push, kill -9 -1, curl | sh, mkfs, reboot


@dataclass(frozen=True)
class Verdict:
    risk: Risk
    reason: str = ""  # for DESTRUCTIVE and above: a few words naming the path, read by the user and the model
    # The hosts the command visibly reaches (`pypi.org`, `ssh:github.com`, `?` for one known only at run
    # time; see shell_policy.hosts); network use is judged apart from the risk, by the approval step.
    hosts: tuple[str, ...] = ()
    # The risk when the kernel sandbox confines the command, where that is lower: a write to a
    # path only known at run time (`echo hi > "$f"`) lands where the kernel allows, or fails.
    sandboxed: Risk | None = None

    def under(self, sandbox: bool) -> Verdict:
        """This verdict as it stands with or without the sandbox."""
        if sandbox and self.sandboxed is not None:
            return replace(self, risk=self.sandboxed, sandboxed=None)
        return self


ORDINARY = Verdict(Risk.ORDINARY)


def worst(verdicts: list[Verdict] | tuple[Verdict, ...], sandbox: bool = False) -> Verdict:
    """The most serious verdict, with or without the sandbox; of equal risks the one the sandbox does
    not lower, else the first, so reasons follow the command's order."""
    best, best_key = ORDINARY, (Risk.ORDINARY, Risk.ORDINARY)
    for verdict in verdicts:
        seen = verdict.under(sandbox)
        key = (seen.risk, seen.under(True).risk)
        if key > best_key:
            best, best_key = seen, key
    return best
