"""A temporary git repository with instruction files, for the AGENTS.md tests of every front end.

outer/AGENTS.md                 above the git root: never read
outer/repo/.git/
outer/repo/AGENTS.md            ROOT_TEXT
outer/repo/sub/AGENTS.md        SUB_TEXT (the working directory of most tests)
outer/repo/sub/claude/CLAUDE.md CLAUDE_TEXT (a folder with only CLAUDE.md)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ABOVE_TEXT = "ABOVE THE GIT ROOT: this must never be read."
ROOT_TEXT = "Root rules: run `make test` before you say done."
SUB_TEXT = "Sub rules: tests in this folder never use the network."
CLAUDE_TEXT = "Claude rules: keep replies under ten lines."


@dataclass(frozen=True)
class Repo:
    outer: Path
    root: Path
    sub: Path
    claude: Path


def make_repo(base: Path) -> Repo:
    outer = base / "outer"
    root = outer / "repo"
    sub = root / "sub"
    claude = sub / "claude"
    (root / ".git").mkdir(parents=True)
    claude.mkdir(parents=True)
    (outer / "AGENTS.md").write_text(ABOVE_TEXT + "\n")
    (root / "AGENTS.md").write_text(ROOT_TEXT + "\n")
    (sub / "AGENTS.md").write_text(SUB_TEXT + "\n")
    (claude / "CLAUDE.md").write_text(CLAUDE_TEXT + "\n")
    return Repo(outer, root, sub, claude)


def block(shown: str, text: str) -> str:
    """One file as the system prompt carries it."""
    return f'<instructions file="{shown}">\n{text}\n</instructions>'
