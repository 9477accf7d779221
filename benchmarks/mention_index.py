"""How fast `@` completion is on a 50,000-file project: listing the files once, and each keystroke's match.

A scratch project of 50,000 files in 500 folders is built under the given
folder (default: a temporary one), made a git repository with a `.gitignore`
that hides 5,000 more, and listed both ways: by git and by the walk used
outside git. Then the queries a user types one character at a time,
`@src/cache`, are matched in order (each narrows the last hits), as are a few
that start afresh. Run: `python benchmarks/mention_index.py [FOLDER]`.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hermeslite.agent import file_index
from hermeslite.agent.file_index import FileIndex, list_files

FILES = 50_000
IGNORED = 5_000


def commit() -> str:
    """The commit this run measured, `+dirty` when the work tree differs from it."""
    here = Path(__file__).resolve().parent

    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=here, capture_output=True, text=True, check=False).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def build(root: Path) -> None:
    for n in range(FILES):
        folder = root / f"pkg{n // 100:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"module_{n}.py").write_text("x\n", encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "cache.py").write_text("x\n", encoding="utf-8")
    (root / "build").mkdir()
    for n in range(IGNORED):
        (root / "build" / f"out_{n}.js").write_text("x\n", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)


def timed(fn, *args):
    started = time.perf_counter()
    result = fn(*args)
    return result, (time.perf_counter() - started) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory(dir=sys.argv[1] if len(sys.argv) > 1 else None) as scratch:
        root = Path(scratch)
        build(root)
        rows: list[tuple[str, float, int]] = []
        paths, ms = timed(list_files, root)
        rows.append(("list (git ls-files)", ms, len(paths)))
        walked, ms = timed(file_index._walk, root)
        rows.append(("list (walk, .gitignore)", ms, len(walked)))
        index = FileIndex()
        index.replace(paths)
        for n in range(1, len("src/cache") + 1):
            hits, ms = timed(index.match, "src/cache"[:n])
            rows.append((f"match {'src/cache'[:n]!r}", ms, len(hits)))
        for query in ("module_4999", "zzz", "py"):
            hits, ms = timed(index.match, query)
            rows.append((f"match {query!r} (afresh)", ms, len(hits)))
    print(f"mention_index at {commit()}: {FILES:,} files (+{IGNORED:,} ignored)")
    print(f"{'step':<28} {'ms':>9} {'paths':>7}")
    for step, ms, count in rows:
        print(f"{step:<28} {ms:>9.1f} {count:>7}")


if __name__ == "__main__":
    main()
