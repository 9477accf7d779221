"""Which failed commands are still open: a failure stays among the anchors until it is resolved.

A failing test run is the one fact a resumed agent must not forget while it
still fails, and the one it should forget once it passes. A command counts as
resolved when a later run of the same target succeeds, and the target is
what the command was about, not how it was spelled: `pytest -q
tests/test_retry.py` passing resolves `pytest tests/test_retry.py -x` failing,
`pytest tests/` resolves every failure under tests/, `python -m pytest` is
`pytest`, and a bare `pytest` (the whole suite) resolves every pytest
failure. Options never change the target; words that are not paths (a
subcommand, `-k` values) must agree. A compound command (`cd x && make`,
pipes) is only resolved by the same command line.

An open failure is kept however many commands ran since (within a stored
bound); what it costs in the checkpoint is `ranking`'s budget, which scales
with the window. Resolved ones go at once, and the user can drop one by
saying so (`drop the failure of pytest tests/test_retry.py`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_COMPOUND = re.compile(r"&&|\|\||[;|`]|\$\(")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_RUNNERS = ({"python", "python3"}, "-m")  # `python -m pytest` runs pytest
_WRAPPERS = (("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("npx",), ("bunx",))
# "drop the failure of X", "forget that failing X", "ignore the failed X": the user lets a failure go.
_DROP = re.compile(
    r"\b(?:drop|forget|ignore|dismiss)\b[^\n]{0,40}?\bfail(?:ure|ed|ing|s)?\b(?:\s+(?:of|in|from))?\s+(?P<what>.+)",
    re.IGNORECASE,
)

# Where the named command ends: punctuation, or the reason that follows it ("..., it is flaky", "for now").
_CLAUSE_END = re.compile(r"[,;:!?]|\.(?:\s|$)|\s(?:for|because|since|as|it|until|and)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    """What a command ran: its program, the words that are not paths, and the paths."""

    program: str
    words: tuple[str, ...]
    paths: frozenset[str]
    exact: str  # the whole command line: all that can match a compound command

    def covers(self, other: Target) -> bool:
        """Whether a success of this target means `other` passes too."""
        if self.exact == other.exact:
            return True
        if not self.program or self.program != other.program or self.words != other.words:
            return False
        return not self.paths or all(any(_under(path, mine) for mine in self.paths) for path in other.paths)


def _under(path: str, root: str) -> bool:
    """`tests/a.py::test_x` is under `tests/a.py` and under `tests/`; `./tests` is `tests`."""
    path, root = path.removeprefix("./"), root.removeprefix("./").rstrip("/")
    return path == root or path.startswith((root + "/", root + "::")) or root in ("", ".")


def _is_path(word: str) -> bool:
    return "/" in word or "::" in word or bool(re.search(r"\.[A-Za-z0-9]+$", word)) or word == "."


def target_of(command: str) -> Target:
    """The target of `command` (see the module's docstring); a compound command is only itself."""
    exact = " ".join(command.split())
    if _COMPOUND.search(command):
        return Target("", (), frozenset(), exact)
    try:
        words = shlex.split(command)
    except ValueError:
        return Target("", (), frozenset(), exact)
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    for wrapper in _WRAPPERS:
        if tuple(words[: len(wrapper)]) == wrapper:
            words = words[len(wrapper) :]
    if len(words) >= 3 and words[0] in _RUNNERS[0] and words[1] == _RUNNERS[1]:
        words = words[2:]
    if not words:
        return Target("", (), frozenset(), exact)
    program, rest = words[0].rsplit("/", 1)[-1], [w for w in words[1:] if not w.startswith("-")]
    plain = tuple(w for w in rest if not _is_path(w))
    return Target(program, plain, frozenset(w for w in rest if _is_path(w)), exact)


def drop_resolved(commands: list[list[Any]], failed: Callable[[list[Any]], bool]) -> list[list[Any]]:
    """`commands` (newest first, [command, exit code]) without the failures a newer success resolved."""
    successes: list[Target] = []
    kept = []
    for command in commands:
        target = target_of(str(command[0]))
        if failed(command):
            if any(success.covers(target) for success in successes):
                continue
        elif command[1] == 0:
            successes.append(target)
        kept.append(command)
    return kept


def dropped_by_user(text: str, commands: list[list[Any]], failed: Callable[[list[Any]], bool]) -> set[str]:
    """The failed commands the user's message `text` lets go ("drop the failure of pytest tests/x.py")."""
    asked = _DROP.search(text)
    if asked is None:
        return set()
    what = _CLAUSE_END.split(asked.group("what"), 1)[0].strip().strip("`'\"").strip()
    wanted = target_of(what)
    return {
        str(c[0])
        for c in commands
        if failed(c) and (what in str(c[0]) or (wanted.program and wanted.covers(target_of(str(c[0])))))
    }
