"""Which tool (or compaction trigger, or session source) a hook group's `matcher` applies to.

    ""  or  "*"              everything
    terminal                 that name exactly
    read_file|write_file     any of these (`,` separates too); each may be a glob: `*_file`, `mcp__github__*`
    mcp__.*__write.*         a regular expression searched in the name, as Claude Code reads a
                             matcher holding any of  . ^ $ ( ) + \\ { }

Claude Code's tool names match ours, so a copied matcher such as `Bash` or
`Edit|Write` picks the same tools here (`CLAUDE_NAMES`).
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

REGEX_CHARACTERS = frozenset(".^$()+\\{}")
ALTERNATIVES = re.compile(r"\s*[|,]\s*")
# Claude Code's name for each of our tools, for matchers written for it.
CLAUDE_NAMES = {
    "terminal": ("Bash",),
    "read_file": ("Read",),
    "write_file": ("Write",),
    "patch": ("Edit", "MultiEdit"),
    "search_files": ("Grep", "Glob"),
}


def is_regex(matcher: str) -> bool:
    return not REGEX_CHARACTERS.isdisjoint(matcher)


def matcher_problem(matcher: str) -> str | None:
    """Why `matcher` can never work (a regular expression that does not compile), else None."""
    if not is_regex(matcher):
        return None
    try:
        re.compile(matcher)
    except re.error as exc:
        return f"is not a valid regular expression ({exc})"
    return None


def matches(matcher: str, target: str) -> bool:
    """Whether a group with `matcher` applies to `target` (a tool name, a trigger or a source)."""
    matcher = matcher.strip()
    if matcher in ("", "*"):
        return True
    names = (target, *CLAUDE_NAMES.get(target, ()))
    if is_regex(matcher):
        pattern = re.compile(matcher)
        return any(pattern.search(name) for name in names)
    alternatives = [part for part in ALTERNATIVES.split(matcher) if part]
    return any(fnmatchcase(name, part) for part in alternatives for name in names)
