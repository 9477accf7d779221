"""Wrapping a viewer's lines so a continuation lines up under the text it continues.

/help, /context and /memory are laid out as a name, a gap of two or more spaces,
then what it means. Wrapped plainly at 80 columns, the rest of a meaning starts
at column 0, under the names, and the two columns run together. Here a long
line continues under its second column (or under its own indent when that
column is too far right to leave room for words).
"""

from __future__ import annotations

import re
import textwrap

from rich.cells import cell_len

_GAP = re.compile(r"\S( {2,})(?=\S)")
MIN_TEXT = 24  # cells a continuation must keep for words, or it hangs from the indent instead


def hang_column(line: str, width: int) -> int:
    """Where the continuation of `line` starts: its second column, else its indent."""
    indent = len(line) - len(line.lstrip(" "))
    gap = _GAP.search(line, indent)
    column = cell_len(line[: gap.end(1)]) if gap else indent
    return column if width - column >= MIN_TEXT else min(indent, max(0, width - MIN_TEXT))


def hang(text: str, width: int) -> str:
    """`text` with every line longer than `width` cells wrapped at word boundaries under its hang column."""
    lines: list[str] = []
    for line in text.split("\n"):
        if cell_len(line) <= width or width <= MIN_TEXT:
            lines.append(line)
            continue
        wrapper = textwrap.TextWrapper(
            width=width,
            subsequent_indent=" " * hang_column(line, width),
            break_on_hyphens=False,
            replace_whitespace=False,
        )
        lines.extend(wrapper.wrap(line))
    return "\n".join(lines)
