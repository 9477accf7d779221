"""What of a long page the model reads at once: its start, or the sections a hint asks for.

The whole page is in the archive either way (`recall` finds any passage of it);
the excerpt only decides what is worth reading first. With a hint, the page is
cut at its Markdown headings and the sections richest in the hint's words are
kept, in page order, after the page's opening.
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^#{1,6} ", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]{2,}")
_COMMON = frozenset(
    "the and for with what how does are this that from into about which when where why who can should would "
    "page docs documentation section show find tell give list".split()
)
GAP = "\n[…]\n"  # between pieces that are not next to each other on the page
OPENING_SHARE = 4  # with a hint, the page's start takes at most a quarter of the room


def start_of(text: str, room: int) -> str:
    """The first `room` characters of `text`, ended at a line break when one is near."""
    if len(text) <= room:
        return text
    cut = text.rfind("\n", room // 2, room)
    return text[: cut if cut > 0 else room]


def hint_words(hint: str) -> set[str]:
    return {word for word in _WORD.findall(hint.lower()) if word not in _COMMON}


def sections(text: str) -> list[str]:
    """`text` cut before each heading; the pieces join back to `text`."""
    starts = [0, *(m.start() for m in _HEADING.finditer(text) if m.start() > 0)]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def excerpt(text: str, room: int, hint: str | None) -> tuple[str, bool]:
    """What fits in `room` characters, and whether the hint chose it (False: the page's start)."""
    words = hint_words(hint or "")
    parts = sections(text)
    scores = [sum(part.lower().count(word) for word in words) for part in parts]
    if not words or not any(scores[1:]):
        return start_of(text, room), False
    opening = start_of(parts[0], room // OPENING_SHARE)
    left = room - len(opening)
    ranked = sorted((i for i in range(1, len(parts)) if scores[i]), key=lambda i: (-scores[i], i))
    chosen: dict[int, str] = {}
    for index in ranked:
        piece = start_of(parts[index], left)
        if len(piece) < min(200, len(parts[index])):
            break
        chosen[index] = piece
        left -= len(piece) + len(GAP)
        if left <= 200:
            break
    pieces = [opening, *(chosen[i] for i in sorted(chosen))]
    return start_of(GAP.join(p.rstrip("\n") for p in pieces), room), True
