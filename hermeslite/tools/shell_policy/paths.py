"""Where a path argument lands, and whether the boundary lets a command touch it.

Paths are resolved the way the kernel will see them: against the working
directory the line has reached, with `..` and symlinks followed. A glob is
judged by its literal directory prefix (`rm -rf ~/*` touches the home). A path
whose value cannot be known is never assumed to be inside.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from hermeslite.tools.shell_policy.expand import Field, State, has_glob, unescape
from hermeslite.tools.shell_policy.verdict import ORDINARY, Boundary, Risk, Verdict, real_path, worst

HARMLESS_DEVICES = frozenset(
    {
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/stdin",
        "/dev/tty",
        "/dev/random",
        "/dev/urandom",
    }
)
HARMLESS_PREFIXES = ("/dev/fd/", "/proc/self/fd/", "/dev/pts/")
MAX_LINK_HOPS = 8  # links made in the line that point through each other; more reads as unknown
DISK_NAMES = ("sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "sr", "nbd", "disk/", "mapper/", "root")


@dataclass(frozen=True)
class Target:
    path: Path | None  # resolved; None when it cannot be known
    shown: str  # how a reason names it
    unknown: str = ""  # why it cannot be known
    glob: bool = False  # `path` is the directory a wildcard expands in
    lexical: str = ""  # the absolute path before symlinks are followed


def is_disk(path: str) -> bool:
    return path.startswith("/dev/") and path[5:].startswith(DISK_NAMES)


def is_harmless_device(path: str) -> bool:
    return path in HARMLESS_DEVICES or path.startswith(HARMLESS_PREFIXES)


@dataclass(frozen=True)
class Paths:
    boundary: Boundary

    def locate(self, field: Field, state: State, follow_last: bool = True) -> list[Target]:
        """Where `field` lands from each possible working directory. With `follow_last`
        False a final symlink is the target itself (`rm link` removes the link;
        `rm -r link/` goes through it)."""
        if field.pattern is None:
            return [Target(None, field.raw, f"`{field.unknown}`")]
        pattern = field.pattern
        bases: tuple[Path | None, ...] = (Path("/"),) if pattern.startswith("/") else state.cwds
        return [self._locate(pattern, base, follow_last, state.links) for base in bases]

    def _locate(self, pattern: str, base: Path | None, follow_last: bool, links: Mapping[Path, Path | None]) -> Target:
        if base is None:
            return Target(None, unescape(pattern), "the working directory after a `cd` it cannot follow")
        parts = pattern.split("/")
        glob_at = next((i for i, p in enumerate(parts) if has_glob(p)), None)
        literal = [unescape(p) for p in (parts if glob_at is None else parts[:glob_at])]
        lexical = os.path.normpath(os.path.join(base, *literal)) if literal else str(base)
        whole = os.path.normpath(os.path.join(base, unescape(pattern)))
        if glob_at is not None and ".." in (unescape(p) for p in parts[glob_at + 1 :]):
            return Target(None, whole, "a `..` after a wildcard")
        link_itself = not follow_last and glob_at is None and literal[-1] not in ("", ".", "..")
        if link_itself:
            path = real_path(os.path.join(base, *literal[:-1])) / literal[-1]
        else:
            path = real_path(os.path.join(base, *literal))
        made = _through_new_links(path, links, link_itself)
        if made is None:
            return Target(None, whole, "a symlink made earlier in this command, pointing where it cannot tell")
        if made != path:
            shown = f"{made} (through the symlink {_link_on(path, links)} made earlier in this command)"
            return Target(made, shown, glob=glob_at is not None, lexical=lexical)
        if glob_at is not None:
            return Target(
                path,
                whole if str(path) == lexical else f"{whole} (through a symlink to {path})",
                glob=True,
                lexical=lexical,
            )
        shown = str(path) if str(path) == lexical else f"{path} (through the symlink {lexical})"
        return Target(path, shown, lexical=lexical)

    def write(self, field: Field, state: State, verb: str = "writes", *, metadata: bool = False) -> Verdict:
        """Writing (creating, moving, changing) `field`: outside the boundary is an escape.

        Where the path is only known at run time, the kernel sandbox decides a
        write: the command runs confined instead of asking. Not a change of
        `metadata` (permissions, owner, attributes, timestamps), which Landlock
        does not confine.
        """
        verdicts = []
        for target in self.locate(field, state):
            if target.path is None:
                unknown = _unknown(verb, field, target)
                verdicts.append(unknown if metadata else replace(unknown, sandboxed=Risk.ORDINARY))
            elif is_harmless_device(target.lexical) or is_harmless_device(str(target.path)):
                continue
            elif is_disk(target.lexical) or is_disk(str(target.path)):
                verdicts.append(Verdict(Risk.UNCONTAINED, f"writes raw data over the disk device {target.lexical}"))
            elif not self.boundary.contains(target.path):
                verdicts.append(_outside(verb, target))
        return worst(verdicts)

    def delete(self, field: Field, state: State, recursive: bool, verb: str = "deletes") -> Verdict:
        """Deleting `field`: outside is an escape; a recursive delete inside is destructive."""
        verdicts = []
        for target in self.locate(field, state, follow_last=False):
            path = target.path
            if path is None:
                unknown = _unknown(verb, field, target)
                # One file the kernel may refuse to delete, as `rm "$f"` after mktemp; a recursive or
                # wildcard delete could still empty the project or the shared temp dir, so it asks.
                single = not recursive and not any(c in field.raw for c in "*?[")
                verdicts.append(replace(unknown, sandboxed=Risk.ORDINARY) if single else unknown)
            elif not self.boundary.contains(path):
                verdicts.append(_outside(verb, target))
            elif path in self.boundary.writable and (recursive or target.glob):
                verdicts.append(Verdict(Risk.ESCAPE, f"{verb} everything in {path}, a directory other programs use"))
            elif recursive and path == self.boundary.cwd and not target.glob:
                verdicts.append(Verdict(Risk.DESTRUCTIVE, f"{verb} the working directory {path} and everything in it"))
            elif recursive:
                verdicts.append(Verdict(Risk.DESTRUCTIVE, f"recursively {verb} {target.shown}"))
        return worst(verdicts) if verdicts else ORDINARY

    def inside(self, field: Field, state: State) -> bool:
        """Every place `field` can name is inside the boundary."""
        return all(t.path is not None and self.boundary.contains(t.path) for t in self.locate(field, state))

    def resolved(self, field: Field, state: State) -> list[Path | None]:
        return [t.path for t in self.locate(field, state)]


def _link_on(path: Path, links: Mapping[Path, Path | None]) -> Path:
    return next(link for link in links if link == path or link in path.parents)


def _through_new_links(path: Path, links: Mapping[Path, Path | None], link_itself: bool) -> Path | None:
    """`path` with symlinks made earlier in the line followed, as the kernel will when it runs;
    None when one of them points somewhere unknown. `link_itself`: a link that is the whole
    path is not followed (`rm link` removes the link)."""
    for _ in range(MAX_LINK_HOPS):
        link = next((k for k in links if (k == path and not link_itself) or k in path.parents), None)
        if link is None:
            return path
        target = links[link]
        if target is None:
            return None
        path = real_path(target / path.relative_to(link))
    return None


def _outside(verb: str, target: Target) -> Verdict:
    return Verdict(Risk.ESCAPE, f"{verb} {target.shown}, outside the working directory")


def _unknown(verb: str, field: Field, target: Target) -> Verdict:
    return Verdict(Risk.ESCAPE, f"{verb} {field.raw}, a path that depends on {target.unknown}, which cannot be checked")
