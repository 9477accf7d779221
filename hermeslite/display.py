"""Text conventions shared by every front end (the TUI and the headless printer).

Both show the same numbers and the same one-line description of a tool call,
so they are written once here rather than kept in step by hand.
"""

from __future__ import annotations

import json

from hermeslite.context.result import format_tokens

__all__ = ["KEY_ARGUMENTS", "format_tokens", "key_argument"]

# The argument worth showing for each kind of tool call, in order of preference.
KEY_ARGUMENTS = ("command", "path", "pattern", "query", "id", "action", "target")


def key_argument(arguments: str, limit: int = 60) -> str:
    """The one argument that says what a tool call does (its command, path or pattern), on one line."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return clip(arguments, limit)
    if not isinstance(args, dict):
        return clip(str(args), limit)
    for key in KEY_ARGUMENTS:
        if key in args:
            return clip(str(args[key]), limit)
    return clip(", ".join(f"{name}={value}" for name, value in list(args.items())[:2]), limit)


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
