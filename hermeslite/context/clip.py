"""Cutting text to one short line, the one rule every preview, label and pruned-output line uses."""

from __future__ import annotations


def clip_line(text: str, limit: int) -> str:
    """Whitespace collapsed, cut to `limit` characters ending in an ellipsis.

    Only as much of `text` is read as the result needs: a pruned tool output
    can be megabytes, and its one-line summary wants the first hundred characters.
    """
    text = str(text)
    size = 4 * limit + 64
    while True:
        flat = " ".join(text[:size].split())  # a prefix of the whole text's collapsed form
        if len(flat) > limit or size >= len(text):
            break
        size *= 4
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
