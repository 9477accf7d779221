"""A unified diff in colour: the app and the line chat read its lines the same way.

Each line is classed by its first characters (added, removed, hunk header,
file header); the app styles the classes, the line chat wraps them in ANSI
colours when it writes to a terminal. The text is neutralized first: a file
the agent wrote may hold escape sequences, and a diff shows file contents.
"""

from __future__ import annotations

from hermeslite.display import neutralize

ADDED, REMOVED, HUNK, FILE, OTHER = "added", "removed", "hunk", "file", "other"
FILE_PREFIXES = ("diff --git ", "index ", "--- ", "+++ ", "new file mode", "deleted file mode", "old mode", "new mode")
ANSI = {ADDED: "32", REMOVED: "31", HUNK: "36", FILE: "1"}


def line_kind(line: str) -> str:
    if line.startswith(FILE_PREFIXES):
        return FILE
    if line.startswith("@@"):
        return HUNK
    if line.startswith("+"):
        return ADDED
    if line.startswith("-"):
        return REMOVED
    return OTHER


def diff_lines(text: str) -> list[tuple[str, str]]:
    """(kind, neutralized line) for each line of a unified diff."""
    return [(line_kind(line), neutralize(line)) for line in text.split("\n")]


def ansi_diff(text: str) -> str:
    """The diff with ANSI colours, for a terminal."""
    out = []
    for kind, line in diff_lines(text):
        code = ANSI.get(kind)
        out.append(f"\x1b[{code}m{line}\x1b[0m" if code else line)
    return "\n".join(out)
