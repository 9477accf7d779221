"""A command's exit code: the line the model reads, and the number code reads.

The code travels as data: the terminal tool sets `ToolResult.exit_code`, the
agent stores it on the tool message under `EXIT_CODE_KEY` (on every tool
message, `None` when the tool has no exit code, so the key's presence says the
message was written by a version that records it), and the TUI gets it on
`ToolFinished`. The `[exit code: N]` line stays in the text because the model
reads text. Sessions saved before the key existed carry only that line, so
`exit_code_of` reads it back from the text for them, here and nowhere else.
"""

from __future__ import annotations

import re

from .messages import ARCHIVE_KEY, EXIT_CODE_KEY, Message, text_of

# What a message saved without the key can say: the output's closing line, or the one-line
# description of a pruned output (`[terminal] ran `make` -> exit 2, 40 lines output [pruned; ...]`).
_LEGACY_EXIT_LINE = re.compile(r"\[exit code: (-?\d+)\]\s*\Z")
_LEGACY_PRUNED = re.compile(r"` -> exit (-?\d+), \d+ lines? output")


def exit_line(code: int) -> str:
    """The line a command's output ends with for the model: `[exit code: 1]`."""
    return f"[exit code: {code}]"


def without_exit_line(text: str, code: int | None) -> str:
    """`text` without its closing exit-code line: the command's own output."""
    if code is None:
        return text
    line = exit_line(code)
    stripped = text.rstrip()
    return stripped[: -len(line)].rstrip("\n") if stripped.endswith(line) else text


def exit_code_of(message: Message) -> int | None:
    """The exit code a message records; for one saved before it was recorded, the code its text
    states in hermeslite's own wording (the closing line, or a pruned output's description)."""
    if EXIT_CODE_KEY in message:
        code = message[EXIT_CODE_KEY]
        return code if isinstance(code, int) and not isinstance(code, bool) else None
    text = text_of(message.get("content"))
    found = _LEGACY_EXIT_LINE.search(text[-200:]) or (_LEGACY_PRUNED.search(text) if message.get(ARCHIVE_KEY) else None)
    return int(found.group(1)) if found else None
