"""Snapshots of a project's files in its shadow repository: incremental, bounded, byte-exact.

A snapshot is a commit. One `git status` finds what changed since the last
one (git's index keeps every file's stat data, so an unchanged 10,000-file
tree costs one directory walk and no reads), and only those paths are
hashed. The project's `.gitignore` files apply, and so do our own patterns
(`checkpoints.exclude`, hermeslite's own folders when they sit inside the
project); a file over the size limit is left out and named once.

Each session's snapshots form a chain under `refs/hermeslite/sessions/<id>`,
so pruning a session is deleting its ref (shadow_prune.py). `HEAD` follows the last commit
written from the index, whoever wrote it: the shared index is one cache of
the work tree, used under a lock (see `ShadowGit.locked`).

git keeps only the executable bit of a file. The full permission bits of
every file whose mode is not what the umask gives a new file (a 0600 secret,
a 0775 script) are written in the commit message, so a restore sets them
exactly. A change of those bits alone, with the content and executable bit
unchanged, is not seen by `git status` and so waits for the file's next edit.

A directory holding a git repository of its own (a nested clone) would be
added as a submodule link, which records a commit id and none of its files,
or fail when that repository has no commit yet. So the index is seeded with
a placeholder inside it: a directory the index already has files in is
walked like any other (its `.git` skipped by name), and the placeholder,
missing from disk, drops out at once.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .shadow_git import CheckpointError, ShadowGit

HEAD_REF = "refs/hermeslite/head"
SESSION_REFS = "refs/hermeslite/sessions/"
PLACEHOLDER = ".hermeslite-nested-repo"
TITLE = "hermeslite snapshot"
GIT_FILE = "100644"


def _umask() -> int:
    """The process umask, read without changing it (os.umask would, for a moment, for every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


UMASK = _umask()


def default_mode(executable: bool) -> int:
    """The permission bits a newly created file gets here: what a restore gives a file not in the manifest."""
    return (0o777 if executable else 0o666) & ~UMASK


@dataclass(frozen=True)
class Limits:
    """What a snapshot leaves out."""

    exclude: tuple[str, ...] = ()  # gitignore patterns, beside the project's .gitignore files
    max_file_bytes: int = 10 * 2**20
    max_files: int = 100_000


@dataclass(frozen=True)
class Snapshot:
    commit: str
    paths: tuple[str, ...]  # changed since the session's previous snapshot (none for its first)
    skipped: tuple[str, ...] = ()  # files over the size limit, each named once per session


@dataclass
class _Status:
    changed: list[str] = field(default_factory=list)  # tracked, and the work-tree file differs or is gone
    untracked: list[str] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)  # "dir/": a repository of its own


def parse_status(raw: bytes) -> _Status:
    """`git status --porcelain=v2 -z` (no renames): what differs from the index, by path."""
    out = _Status()
    records = iter(raw.split(b"\0"))
    for record in records:
        if record.startswith(b"1 "):
            fields = record.split(b" ", 8)
            if fields[1][1:2] != b".":  # Y: the work tree differs from the index
                out.changed.append(os.fsdecode(fields[8]))
        elif record.startswith(b"2 "):  # a rename (none are asked for); its second path follows
            next(records, None)
        elif record.startswith(b"? "):
            path = os.fsdecode(record[2:])
            (out.nested if path.endswith("/") else out.untracked).append(path)
    return out


class ShadowRepo:
    """The snapshots of one project (a work tree) in one shadow repository."""

    def __init__(self, git: ShadowGit, limits: Limits, protected: tuple[Path, ...] = ()) -> None:
        self.git = git
        self.root = git.work_tree
        self.limits = limits
        git.init()
        self._rules_changed = git.write_exclude(self._patterns(protected))
        self._trees: dict[str, str] = {}  # commit -> tree, for commits seen
        self._heads: dict[str, str | None] = {}  # session -> its last snapshot
        self._modes: dict[str, int] = {}  # the manifest of the index's tree
        self._modes_at: str | None = None  # the HEAD commit `_modes` was read from
        self._index_sig: tuple[int, int, int] | None = None  # the index file as our last write-tree left it
        self._index_tree: str | None = None
        self._reported: set[str] = set()
        self._empty_nested: set[str] = set()

    def _patterns(self, protected: tuple[Path, ...]) -> list[str]:
        """Our ignore rules: `.git` wherever it is, the user's patterns, and hermeslite's own folders
        that sit inside the project (a snapshot of its store would contain itself)."""
        own = []
        for path in protected:
            try:
                relative = path.resolve().relative_to(self.root)
            except (ValueError, OSError):
                continue
            if relative.parts:
                own.append("/" + _escape(relative.as_posix()) + "/")
        return ["# written by hermeslite", ".git", *self.limits.exclude, *own]

    # -- snapshots ------------------------------------------------------------------

    def snapshot(self, session_id: str | None) -> Snapshot:
        """The work tree as a commit, the next in `session_id`'s chain (the session's last one when
        nothing changed). None: a look at the tree that belongs to no session (a restore's preview)."""
        with self.git.locked():
            tree, skipped = self._stage()
            head = self._head()
            if session_id is None:
                if head is not None and self.tree_of(head) == tree:
                    return Snapshot(head, (), skipped)
                return Snapshot(self._commit(tree, [], None), (), skipped)
            parent = self.head(session_id)
            if parent is not None and self.tree_of(parent) == tree:
                if self.tree_of(head) != tree:
                    self._commit(tree, [parent], None)  # HEAD must describe the index
                return Snapshot(parent, (), skipped)
            commit = self._commit(tree, [parent] if parent else [], session_id)
            paths = tuple(self.changed_paths(parent, commit)) if parent else ()
            return Snapshot(commit, paths, skipped)

    def head(self, session_id: str) -> str | None:
        """The last snapshot of `session_id`, or None before its first."""
        if session_id not in self._heads:
            self._heads[session_id] = self.git.read_ref(SESSION_REFS + session_id)
        return self._heads[session_id]

    def advance(self, session_id: str, parents: list[str]) -> str:
        """A snapshot of the tree as it is now, made the session's last with `parents` (a restore keeps
        the tree it replaced reachable this way)."""
        with self.git.locked():
            tree, _ = self._stage()
            return self._commit(tree, parents, session_id)

    def _stage(self) -> tuple[str, tuple[str, ...]]:
        """Bring the index up to the work tree; returns its tree and the files left out for size."""
        self._load_modes()
        status = self._status()
        if status.nested:
            self._seed(status.nested)
            nested, status = status.nested, self._status()
            for folder in nested:
                if not any(p.startswith(folder) for p in status.untracked):
                    self._empty_nested.add(folder)  # nothing to keep in it: not seeded again in this process
        if self.git.index_entries() + len(status.untracked) > self.limits.max_files:
            raise CheckpointError(
                f"the project has more than {self.limits.max_files:,} files (checkpoints.max_files); "
                "exclude generated folders with checkpoints.exclude or .gitignore"
            )
        adds, gone, skipped = self._sort(status)
        if self._rules_changed or any(Path(p).name == ".gitignore" for p in [*adds, *gone]):
            ignored = self._ignored_tracked()  # the rules changed: what they now ignore leaves the snapshots
            adds = [p for p in adds if p not in ignored]
            gone += sorted(ignored)
            self._rules_changed = False
        if adds:  # before the removals: a nested repository's placeholder must still be in the index
            self.git.run("add", "-A", *_pathspec_file(), stdin=_nul(adds))
        if gone:
            self.git.run("update-index", "-z", "--force-remove", "--stdin", stdin=_nul(gone))
        if not (adds or gone) and self._index_sig == self.git.index_signature() and self._index_tree:
            return self._index_tree, skipped
        tree = self.git.run("write-tree").decode().strip()
        self._index_sig, self._index_tree = self.git.index_signature(), tree
        return tree, skipped

    def _status(self) -> _Status:
        """What differs from the index. Untracked folders are listed whole at first (git walks faster
        so, by a third at 10,000 files); only when a new folder shows up is it listed file by file."""
        status = self._status_of("normal")
        if any(not os.path.lexists(self.root / d / ".git") for d in status.nested):
            status = self._status_of("all")
        return status

    def _status_of(self, untracked: str) -> _Status:
        raw = self.git.run("status", "--porcelain=v2", "-z", f"--untracked-files={untracked}", "--no-renames")
        status = parse_status(raw)
        status.nested = [d for d in status.nested if d not in self._empty_nested]
        return status

    def _seed(self, nested: list[str]) -> None:
        """A placeholder entry inside each nested repository, so git walks it as a folder (see above)."""
        empty = self.git.run("hash-object", "-w", "--stdin", stdin=b"").decode().strip()
        lines = b"".join(f"{GIT_FILE} {empty}\t".encode() + os.fsencode(d + PLACEHOLDER) + b"\0" for d in nested)
        self.git.run("update-index", "-z", "--index-info", stdin=lines)

    def _sort(self, status: _Status) -> tuple[list[str], list[str], tuple[str, ...]]:
        """(paths to add, tracked paths to drop: gone, or grown past the size limit, files left out), and
        the mode manifest updated. A path gone from disk is dropped by name, not added: `git add` refuses
        one whose folder is now a symlink."""
        adds: list[str] = []
        gone: list[str] = []
        skipped: list[str] = []
        tracked = set(status.changed)
        for path in [*status.changed, *status.untracked]:
            try:
                info = os.lstat(self.root / path)
            except OSError:
                gone.append(path)
                self._modes.pop(path, None)
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size > self.limits.max_file_bytes:
                self._modes.pop(path, None)
                if path in tracked:
                    gone.append(path)
                if path not in self._reported:
                    self._reported.add(path)
                    skipped.append(path)
                continue
            adds.append(path)
            self._note_mode(path, info.st_mode)
        return adds, gone, tuple(skipped)

    def _note_mode(self, path: str, mode: int) -> None:
        if not stat.S_ISREG(mode):
            self._modes.pop(path, None)
            return
        bits = stat.S_IMODE(mode)
        if bits == default_mode(bool(mode & stat.S_IXUSR)):
            self._modes.pop(path, None)
        else:
            self._modes[path] = bits

    def _ignored_tracked(self) -> set[str]:
        """Snapshotted files the ignore rules (as they are on disk now) cover."""
        raw = self.git.run("ls-files", "-z", "-ci", "--exclude-standard")
        paths = {os.fsdecode(p) for p in raw.split(b"\0") if p}
        for path in paths:
            self._modes.pop(path, None)
        return paths

    def _commit(self, tree: str, parents: list[str], session_id: str | None) -> str:
        message = f"{TITLE}\n\n{json.dumps({'modes': self._modes}, sort_keys=True)}\n"
        args = ["commit-tree", tree, *(part for p in parents for part in ("-p", p)), "-F", "-"]
        commit = self.git.run(*args, stdin=message.encode()).decode().strip()
        updates = f"update {HEAD_REF} {commit}\n"
        if session_id is not None:
            updates += f"update {SESSION_REFS}{session_id} {commit}\n"
            self._heads[session_id] = commit
        self.git.run("update-ref", "--stdin", stdin=updates.encode())
        self._trees[commit] = tree
        self._modes_at = commit
        return commit

    def _load_modes(self) -> None:
        """The manifest of HEAD's tree, re-read when another process wrote HEAD since."""
        head = self._head()
        if head != self._modes_at:
            self._modes = self.modes(head) if head else {}
            self._modes_at = head

    def _head(self) -> str | None:
        return self.git.read_ref(HEAD_REF)

    # -- reading ----------------------------------------------------------------------

    def tree_of(self, commit: str | None) -> str | None:
        if commit is None:
            return None
        if commit not in self._trees:
            self._trees[commit] = self.git.run("rev-parse", f"{commit}^{{tree}}").decode().strip()
        return self._trees[commit]

    def modes(self, commit: str) -> dict[str, int]:
        """The permission manifest of a snapshot: path -> bits, for files whose bits are not the default."""
        text = self.git.run("cat-file", "commit", commit).decode("utf-8", "replace")
        _, _, body = text.partition("\n\n")
        try:
            found = json.loads(body.partition("\n\n")[2] or "{}").get("modes", {})
        except (ValueError, AttributeError):
            return {}
        return {str(k): int(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def exists(self, commit: str) -> bool:
        """Whether a snapshot is still in the store (pruning removes old sessions' snapshots)."""
        return self.git.succeeds("cat-file", "-e", f"{commit}^{{commit}}")

    def changed_paths(self, old: str, new: str) -> list[str]:
        raw = self.git.run("diff-tree", "-r", "-z", "--no-renames", "--name-only", old, new)
        return [os.fsdecode(p) for p in raw.split(b"\0") if p]

    def unified_diff(self, old: str, new: str, max_lines: int) -> str:
        """`git diff` from `old` to `new` as text, cut after `max_lines` lines with a line saying so.
        No external diff program or text conversion runs, whatever the project's attributes say."""
        raw = self.git.run(
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "--no-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            old,
            new,
        )
        lines = raw.decode("utf-8", "replace").splitlines()
        if len(lines) <= max_lines:
            return "\n".join(lines)
        return "\n".join(
            [*lines[:max_lines], f"… {len(lines) - max_lines:,} more lines (the diff is cut at {max_lines:,})"]
        )

    # -- pruning (the policy is in shadow_prune.py) -------------------------------------

    def sessions(self) -> list[tuple[str, float]]:
        """(session id, time of its last snapshot), oldest first."""
        raw = self.git.run("for-each-ref", "--format=%(committerdate:unix) %(refname)", SESSION_REFS)
        rows = []
        for line in raw.decode().splitlines():
            when, _, ref = line.partition(" ")
            rows.append((ref.removeprefix(SESSION_REFS), float(when)))
        return sorted(rows, key=lambda row: row[1])

    def size_bytes(self) -> int:
        raw = self.git.run("count-objects", "-v").decode()
        sizes = dict(line.split(": ", 1) for line in raw.splitlines() if ": " in line)
        return (int(sizes.get("size", 0)) + int(sizes.get("size-pack", 0))) * 1024

    def drop(self, sessions: list[str]) -> None:
        """Delete these sessions' snapshots: their refs, then every object no other ref reaches. The
        caller holds the lock: nothing is half-written while `gc --prune=now` runs."""
        updates = "".join(f"delete {SESSION_REFS}{sid}\n" for sid in sessions)
        self.git.run("update-ref", "--stdin", stdin=updates.encode())
        for sid in sessions:
            self._heads.pop(sid, None)
        # A store written before reflogs were turned off still has HEAD's, which reaches every snapshot.
        self.git.run("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
        self.git.run("gc", "--quiet", "--prune=now")


def _pathspec_file() -> tuple[str, str]:
    return ("--pathspec-from-file=-", "--pathspec-file-nul")


def _nul(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def _escape(path: str) -> str:
    """A literal path as a gitignore pattern: glob characters and a leading # or ! escaped."""
    out = "".join("\\" + c if c in "*?[]\\" else c for c in path)
    return "\\" + out if out[:1] in ("#", "!") else out
