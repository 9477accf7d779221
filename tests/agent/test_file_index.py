"""The @ completion's file list: git's view of the project (ignored files out, new files in), a walk
that honours .gitignore outside git, and fuzzy matching over 50,000 paths that narrows as the user types."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hermeslite.agent.file_index import FileIndex, list_files


def tree(root: Path, *paths: str) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(path, encoding="utf-8")


def test_in_a_git_repo_tracked_and_new_files_are_listed_and_ignored_ones_are_not(tmp_path):
    tree(tmp_path, ".gitignore", "src/cache.py", "src/app.py", "build/out.js", "notes.log", "new.txt")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", ".gitignore", "src"], cwd=tmp_path, check=True)
    assert list_files(tmp_path) == [".gitignore", "new.txt", "src/app.py", "src/cache.py"]


def test_outside_git_a_walk_honours_each_gitignore(tmp_path):
    tree(tmp_path, ".gitignore", "src/.gitignore", "src/keep.py", "src/gen.py", "dist/x.js", "a.tmp", "b.py")
    tree(tmp_path, ".git/config", "node_modules/m/index.js")
    (tmp_path / ".gitignore").write_text("dist/\n*.tmp\n", encoding="utf-8")
    (tmp_path / "src" / ".gitignore").write_text("gen.py\n", encoding="utf-8")
    assert list_files(tmp_path) == [".gitignore", "b.py", "src/.gitignore", "src/keep.py"]


def fifty_thousand() -> list[str]:
    return [f"pkg{n // 100}/module_{n}.py" for n in range(50_000)] + ["src/cache.py", "src/cat/feed.py", "docs/SRC.md"]


def test_fuzzy_matching_over_fifty_thousand_paths_ranks_contiguous_hits_first():
    index = FileIndex()
    index.replace(fifty_thousand())
    assert index.match("src/ca") == ["src/cache.py", "src/cat/feed.py"]
    assert index.match("SRC/CAC") == ["src/cache.py"]  # case-insensitive, narrowed from the last hits
    assert index.match("scfp") == ["src/cat/feed.py"]  # characters in order, gaps allowed
    assert index.match("module_49999") == ["pkg499/module_49999.py"]
    assert index.match("zzz") == []
    assert len(index.match("py")) == 50


def test_a_query_that_does_not_extend_the_last_one_searches_everything_again():
    index = FileIndex()
    index.replace(fifty_thousand())
    assert index.match("src/cac") == ["src/cache.py"]
    assert index.match("docs") == ["docs/SRC.md"]  # not a narrowing of "src/cac": the whole list again
    assert index.match("src/ca") == ["src/cache.py", "src/cat/feed.py"]  # backspace widens again
