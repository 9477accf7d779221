"""Cutting text short: to one line (previews, labels, pruned-output lines, error lines), at its end
(titles, quoted passages) or to its two ends (tool output, recalled originals), each by one rule."""

from __future__ import annotations

from collections.abc import Callable


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


def clip_end(text: str, limit: int) -> str:
    """`text` when it fits in `limit` characters, else its start ending in an ellipsis with no space
    before it, at most `limit` characters (for a positive `limit`). Unlike `clip_line`, the start
    keeps its line breaks."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


def keep_ends(text: str, head: int, tail: int, marker: Callable[[int], str]) -> str:
    """`text` when it fits in `head + tail` characters, else its first `head` and last `tail`
    characters around `marker(number of characters cut)`.

    Long output says what started at its head and how it ended at its tail, so
    the middle is what goes.
    """
    if len(text) <= head + tail:
        return text
    cut = len(text) - head - tail
    return text[:head] + marker(cut) + text[len(text) - tail :]
