"""Files attached to a user message by `@path` mentions: how they are written, and the message without them.

The agent appends each file after what the user typed, in an
`<attached_file>` block. The rest of the context layer must not take a file's
text for the user's words: a file saying "always use tabs" is no standing
instruction, and instruction-shaped text in it must not vouch for a summary
that repeats it. So readers of "what the user wrote" call `typed_text`, which
keeps the typed part and names the files.
"""

from __future__ import annotations

import re

OPEN = '<attached_file path="{path}" lines="{lines}">'
CLOSE = "</attached_file>"
BLOCK = re.compile(r'\n\n<attached_file path="(?P<path>[^"]*)" lines="(?P<lines>\d+)">\n.*?\n</attached_file>', re.S)


def attachment(path: str, lines: int, body: str) -> str:
    """One file's block, as appended to the message (with the blank line before it)."""
    return "\n\n" + OPEN.format(path=path, lines=lines) + "\n" + body.rstrip("\n") + "\n" + CLOSE


def file_label(path: str, lines: int, *, cut: bool = False) -> str:
    """How a note names an attached file: "a.py (120 lines)", "b.py (1 line)", "c.py (900 lines, start only)"."""
    return f"{path} ({lines} line{'' if lines == 1 else 's'}{', start only' if cut else ''})"


def split_attachments(content: str) -> tuple[str, list[tuple[str, int]]]:
    """A user message as typed, and the (path, lines) of the files attached to it."""
    found = [(m.group("path"), int(m.group("lines"))) for m in BLOCK.finditer(content)]
    first = BLOCK.search(content)
    return (content[: first.start()] if first else content), found


def typed_text(content: str) -> str:
    """What the user wrote, with "[attached: a.py]" in place of the files' text."""
    typed, files = split_attachments(content)
    if not files:
        return content
    return typed + " [attached: " + ", ".join(path for path, _ in files) + "]"
