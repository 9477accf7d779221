"""A unified diff as styled text: the /diff view, the tool panel of an edit and the approval dialog
draw it the same way (added green, removed red, hunk headers cyan, file headers bold)."""

from __future__ import annotations

from textual.content import Content

from hermeslite.commands.diff_view import ADDED, FILE, HUNK, REMOVED, diff_lines

STYLES = {ADDED: "green", REMOVED: "red", HUNK: "cyan", FILE: "bold"}


def diff_content(text: str) -> Content:
    """The diff as one styled Content, a line per diff line (neutralized: it shows file contents)."""
    lines = diff_lines(text)
    parts: list[str | tuple[str, str]] = []
    for index, (kind, line) in enumerate(lines):
        end = "\n" if index < len(lines) - 1 else ""
        style = STYLES.get(kind)
        parts.append((line + end, style) if style else line + end)
    return Content.assemble(*parts)
