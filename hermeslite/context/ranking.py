"""Which recorded facts to keep when they outgrow their budget: the least important go first.

Recency alone is the wrong order. Ten rounds of ordinary requests push a
"never touch vendor/" said at the start out of any newest-first list, along
with the one file that was written and the test that failed. So the facts
are ranked by what they are: the latest ask, then standing instructions,
failing commands with their error lines, files written or patched, weaker
instructions and requests for later, silent failures, error lines of other
tools, files only read, the other user messages (the checkpoint's job more
than ours: their exact words matter less than a path's), and passing
commands. Within a class the newer one wins. The same ranking bounds what is stored between compactions, so the
record stays the same size however long the session runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .anchors import SECTION_TITLES, TITLE, Anchors, command_lines, failed, is_written
from .instructions import is_strong, render_instruction
from .tokens import CHARS_PER_TOKEN

# The section's title, the line that opens each class of facts, and the blank line before the section.
HEADERS_CHARS = len(TITLE) + sum(len(title) + 1 for title in SECTION_TITLES.values()) + 2


def _user_cost(text: str) -> int:
    return len(text) + 4


def _instruction_cost(pair: list[str]) -> int:
    return len(render_instruction(pair[0], pair[1]))


def _file_cost(file: list[str]) -> int:
    return len(file[0]) + len(file[1]) + 3


def _error_cost(line: str) -> int:
    return len(line) + 2


def _everything(_: Any) -> bool:
    return True


class _Picker:
    """Takes items class by class, most important first, while they fit."""

    def __init__(self, budget_chars: int) -> None:
        self.left = budget_chars
        self.keep: set[tuple[str, int]] = set()

    def offer(
        self, kind: str, items: list[Any], cost: Callable[[Any], int], wanted: Callable[[Any], bool] = _everything
    ) -> None:
        for n, item in enumerate(items):
            if (kind, n) in self.keep or not wanted(item):
                continue
            size = cost(item) + 1
            if size <= self.left:
                self.keep.add((kind, n))
                self.left -= size

    def kept(self, kind: str, items: list[Any]) -> list[Any]:
        return [item for n, item in enumerate(items) if (kind, n) in self.keep]


def fit_anchors(anchors: Anchors, budget_tokens: int) -> Anchors:
    """The most important anchors whose rendering fits in `budget_tokens`, in their original order."""
    pick = _Picker(budget_tokens * CHARS_PER_TOKEN - HEADERS_CHARS)

    def command_cost(command: list[Any]) -> int:
        return sum(len(line) + 1 for line in command_lines(command, anchors.failures))

    def failed_with_lines(command: list[Any]) -> bool:
        return failed(command) and bool(anchors.failures.get(command[0]))

    pick.offer("users", anchors.users[:1], _user_cost)
    pick.offer("instructions", anchors.instructions, _instruction_cost, lambda pair: is_strong(pair[0]))
    pick.offer("commands", anchors.commands, command_cost, failed_with_lines)
    pick.offer("files", anchors.files, _file_cost, is_written)
    pick.offer("instructions", anchors.instructions, _instruction_cost)
    pick.offer("commands", anchors.commands, command_cost, failed)
    pick.offer("errors", anchors.errors, _error_cost)
    pick.offer("files", anchors.files, _file_cost)
    pick.offer("users", anchors.users, _user_cost)
    pick.offer("commands", anchors.commands, command_cost)
    commands = pick.kept("commands", anchors.commands)
    return Anchors(
        users=pick.kept("users", anchors.users),
        instructions=pick.kept("instructions", anchors.instructions),
        files=pick.kept("files", anchors.files),
        commands=commands,
        errors=pick.kept("errors", anchors.errors),
        failures={c[0]: anchors.failures[c[0]] for c in commands if c[0] in anchors.failures},
    )
