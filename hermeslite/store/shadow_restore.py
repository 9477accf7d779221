"""Taking the project's files back to a snapshot: planned and shown first, then written exactly.

A plan compares the tree as it is now (a fresh snapshot) with the target:
files to write back (changed or deleted since) and files to delete (created
since), with line counts for the diffstat, and the files among them that
changed since this session's last snapshot: someone other than hermeslite
changed those, so overwriting them needs the user's yes. A file the target
has that is on disk but no longer snapshotted (ignored now, excluded, over
the size limit) is left alone, and so is one the ignore rules now cover.

Applying checks that the tree is still the one planned, then writes each
file from its blob with its exact bytes and permission bits (atomically, via
a temporary file beside it), recreates symlinks, deletes the files created
since and the folders that held only them. Every path is walked from the
project root one directory at a time with O_NOFOLLOW, so a symlink put where
a folder was cannot send a write outside the project. Finally the restored
tree becomes the session's last snapshot, with the tree it replaced as a
second parent: what was overwritten stays in the store.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .shadow_git import CheckpointError
from .shadow_repo import ShadowRepo

RESTORE, RECREATE, DELETE = "restore", "recreate", "delete"
GIT_LINK = "120000"
GIT_EXEC = "100755"
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class TreeChanged(CheckpointError):
    """The files changed between the preview and the restore."""


@dataclass(frozen=True)
class FileChange:
    path: str
    action: str  # RESTORE (written back), RECREATE (deleted since), DELETE (created since)
    mode: str = ""  # the target's git mode (100644, 100755, 120000); "" for DELETE
    blob: str = ""  # the target's blob id; "" for DELETE
    added: int | None = None  # lines the restore brings back; None for a binary file
    removed: int | None = None  # lines it takes away


@dataclass(frozen=True)
class RestorePlan:
    target: str  # the snapshot the files go back to
    current: str  # the snapshot of the files as they were when planned
    changes: tuple[FileChange, ...]
    hand_changed: tuple[str, ...]  # paths among the changes edited since the session's last snapshot
    left_alone: tuple[str, ...] = ()  # in the target, but on disk and not snapshotted now (ignored, too large)


@dataclass
class Restored:
    written: int = 0
    deleted: int = 0
    problems: list[str] = field(default_factory=list)  # one line per file that could not be restored


def plan_restore(
    repo: ShadowRepo,
    session_id: str,
    target: str,
    only: set[str] | None = None,
    edited: set[str] | frozenset[str] = frozenset(),
) -> RestorePlan:
    """What restoring `target` would change now; `only` limits it to those paths (an undo of one turn).
    `edited`: paths the caller knows were changed by hand since the target (between turns); those
    changed since the session's last snapshot are found here. Under the repository's lock: another
    session's prune must not take the snapshot's objects away half way through."""
    with repo.git.locked():
        return _plan_restore(repo, session_id, target, only, edited)


def _plan_restore(
    repo: ShadowRepo, session_id: str, target: str, only: set[str] | None, edited: set[str] | frozenset[str]
) -> RestorePlan:
    if not repo.exists(target):
        raise CheckpointError("that snapshot is no longer in the store (older than checkpoints.keep_days, or pruned)")
    current = repo.snapshot(None).commit
    raw = _raw_diff(repo, current, target)
    counts = _numstat(repo, current, target)
    changes: list[FileChange] = []
    recreate_candidates: list[str] = []
    for status, mode, blob, path in raw:
        if only is not None and path not in only:
            continue
        added, removed = counts.get(path, (None, None))
        if status == "D":
            changes.append(FileChange(path, DELETE, added=added, removed=removed))
            continue
        action = RECREATE if status == "A" else RESTORE
        changes.append(FileChange(path, action, mode, blob, added, removed))
        if action == RECREATE:
            recreate_candidates.append(path)
    untouchable = _present_or_ignored(repo, recreate_candidates)
    head = repo.head(session_id)
    edited = set(edited) | (set(repo.changed_paths(head, current)) if head and head != current else set())
    kept = [c for c in changes if c.path not in untouchable]
    return RestorePlan(
        target=target,
        current=current,
        changes=tuple(kept),
        hand_changed=tuple(sorted(c.path for c in kept if c.path in edited)),
        left_alone=tuple(sorted(untouchable)),
    )


def apply_restore(repo: ShadowRepo, session_id: str, plan: RestorePlan) -> Restored:
    """Write the plan's changes (see the module docstring); TreeChanged if the files moved on since it.
    Under the repository's lock, as the plan was made."""
    with repo.git.locked():
        return _apply_restore(repo, session_id, plan)


def _apply_restore(repo: ShadowRepo, session_id: str, plan: RestorePlan) -> Restored:
    if not repo.exists(plan.target):
        raise CheckpointError("that snapshot is no longer in the store (older than checkpoints.keep_days, or pruned)")
    now = repo.snapshot(None).commit
    if repo.tree_of(now) != repo.tree_of(plan.current):
        raise TreeChanged("the files changed since the preview; nothing was restored, look again")
    modes = repo.modes(plan.target)
    blobs = _blobs(repo, [c.blob for c in plan.changes if c.action != DELETE])
    done = Restored()
    root = os.open(repo.root, DIR_FLAGS)
    try:
        deletions = [c for c in plan.changes if c.action == DELETE]
        for change in sorted(deletions, key=lambda c: c.path.count("/"), reverse=True):
            _delete(root, change.path, done)
        for change in sorted((c for c in plan.changes if c.action != DELETE), key=lambda c: c.path):
            _write(root, change, blobs[change.blob], modes.get(change.path), done)
    finally:
        os.close(root)
    head = repo.head(session_id)
    try:
        repo.advance(session_id, [p for p in (head, plan.current) if p])
    except CheckpointError as exc:  # the files are restored; only the record of it failed
        done.problems.append(f"the restored files were not snapshotted ({exc})")
    return done


def _raw_diff(repo: ShadowRepo, old: str, new: str) -> list[tuple[str, str, str, str]]:
    """(status, new mode, new blob, path) for each path that differs, `diff-tree --raw -z`."""
    raw = repo.git.run("diff-tree", "-r", "-z", "--no-renames", "--raw", old, new)
    parts = raw.split(b"\0")
    out = []
    for head, path in zip(parts[0::2], parts[1::2], strict=False):
        if not head.startswith(b":"):
            continue
        _, new_mode, _, new_blob, status = head[1:].decode().split(" ")
        out.append((status[:1], new_mode, new_blob, os.fsdecode(path)))
    return out


def _numstat(repo: ShadowRepo, old: str, new: str) -> dict[str, tuple[int | None, int | None]]:
    raw = repo.git.run("diff-tree", "-r", "-z", "--no-renames", "--numstat", old, new)
    out: dict[str, tuple[int | None, int | None]] = {}
    for record in raw.split(b"\0"):
        fields = record.split(b"\t", 2)
        if len(fields) == 3:
            added, removed = (None if f == b"-" else int(f) for f in fields[:2])
            out[os.fsdecode(fields[2])] = (added, removed)
    return out


def _present_or_ignored(repo: ShadowRepo, paths: list[str]) -> set[str]:
    """Paths a restore must not create: a file is there that is not snapshotted, or the rules ignore it now.
    A path under a link or a file that stands where its folder was is neither (that stand-in was created
    since, and the restore deletes it first)."""
    displaced = {p for p in paths if _displaced(repo.root / p, repo.root)}
    present = {p for p in paths if p not in displaced and os.path.lexists(repo.root / p)}
    rest = [p for p in paths if p not in present and p not in displaced]
    if not rest:
        return present
    stdin = b"".join(os.fsencode(p) + b"\0" for p in rest)
    raw = repo.git.run("check-ignore", "-z", "--stdin", "--no-index", stdin=stdin, ok=(0, 1), globs=True)
    return present | {os.fsdecode(p) for p in raw.split(b"\0") if p}


def _displaced(path: Path, root: Path) -> bool:
    """Whether a folder on the way to `path` is a symlink or a file now."""
    for folder in reversed(path.parents):
        if folder == root or root not in folder.parents:
            continue
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                return True
        except FileNotFoundError:
            return False
    return False


def _blobs(repo: ShadowRepo, ids: list[str]) -> dict[str, bytes]:
    """Blob contents by id, read with one `cat-file --batch`."""
    unique = sorted(set(ids))
    if not unique:
        return {}
    raw = repo.git.run("cat-file", "--batch", stdin="".join(f"{i}\n" for i in unique).encode())
    out, at = {}, 0
    for blob in unique:
        end = raw.index(b"\n", at)
        header = raw[at:end].split(b" ")
        if len(header) != 3:
            raise CheckpointError(f"the store is missing file contents ({blob[:12]})")
        size = int(header[2])
        out[blob] = raw[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return out


def _parent(root: int, path: str, *, create: bool) -> tuple[int, str]:
    """An fd of `path`'s folder, walked from the root without following symlinks, and its last name."""
    *folders, name = path.split("/")
    fd = os.dup(root)
    try:
        for folder in folders:
            try:
                child = os.open(folder, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(folder, 0o777, dir_fd=fd)
                child = os.open(folder, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd, name


def _delete(root: int, path: str, done: Restored) -> None:
    try:
        fd, name = _parent(root, path, create=False)
    except FileNotFoundError:
        return  # already gone
    except OSError as exc:
        done.problems.append(f"{path}: not deleted ({exc.strerror or exc})")
        return
    try:
        os.unlink(name, dir_fd=fd)
        done.deleted += 1
    except FileNotFoundError:
        pass
    except OSError as exc:
        done.problems.append(f"{path}: not deleted ({exc.strerror or exc})")
    finally:
        os.close(fd)
    _remove_empty_folders(root, path)


def _remove_empty_folders(root: int, path: str) -> None:
    """The folders that held only deleted files go too, innermost first; the first one not empty stops it."""
    folders = path.split("/")[:-1]
    while folders:
        try:
            fd, name = _parent(root, "/".join(folders), create=False)
        except OSError:
            return
        try:
            os.rmdir(name, dir_fd=fd)
        except OSError:
            return
        finally:
            os.close(fd)
        folders.pop()


def _write(root: int, change: FileChange, data: bytes, bits: int | None, done: Restored) -> None:
    try:
        fd, name = _parent(root, change.path, create=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        done.problems.append(f"{change.path}: not restored ({reason}: a file or link is where a folder was)")
        return
    temp = f".{name[:40]}.hermeslite-{secrets.token_hex(4)}"
    try:
        if change.mode == GIT_LINK:
            os.symlink(os.fsdecode(data), temp, dir_fd=fd)
        else:
            executable = change.mode == GIT_EXEC
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            out = os.open(temp, flags, 0o777 if executable else 0o666, dir_fd=fd)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(out, view) :]
                if bits is not None:
                    os.fchmod(out, bits)
            finally:
                os.close(out)
        os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
        done.written += 1
    except OSError as exc:
        done.problems.append(f"{change.path}: not restored ({exc.strerror or exc})")
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=fd)
    finally:
        os.close(fd)
