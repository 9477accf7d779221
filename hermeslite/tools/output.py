"""Capping tool output so one noisy command cannot flood the context window.

The head shows what a command started doing and the tail shows how it ended
(the error, the summary line, the exit status), so both are kept and the middle
is dropped. The tail gets the larger share because failures are reported last.

What comes out is redacted, and redacted before it is cut: a cut through a
private key block or a `ghp_` token would otherwise keep a piece the rules can
no longer recognise (the block without its BEGIN line, the token without its
prefix). Each kept end is judged with MARGIN characters beyond the cut in view,
more than the longest secret the rules know, so a secret the cut goes through is
masked up to the cut.
"""

from __future__ import annotations

from hermeslite.context.redact import CUT_CONTEXT, redact_secrets, redact_slice

HEAD_SHARE = 0.4
MARGIN = CUT_CONTEXT  # text kept past each cut, only so that redaction can read it


def _marker(omitted: int) -> str:
    return f"\n…[{omitted} chars omitted]…\n"


def _split(limit: int, room: int = 0) -> tuple[int, int]:
    """Head and tail sizes; `room` (for a line the caller adds) comes off the tail, so the head's cut
    stays where it would be without it."""
    limit = max(limit, 2)
    head = int(limit * HEAD_SHARE)
    return head, max(limit - head - room, 1)


def cap_output(text: str, limit: int, room: int = 0) -> str:
    """`text` redacted; when longer than `limit` characters, only its redacted head and tail around
    a marker that says how much was left out, `room` characters short of `limit`."""
    if len(text) <= limit:
        return redact_secrets(text)
    head, tail = _split(limit, room)
    return _ends(text, head, text, len(text) - tail, len(text))


def _ends(head_text: str, head: int, tail_text: str, tail_start: int, total: int) -> str:
    """`head_text[:head]` and `tail_text[tail_start:]`, each redacted with its surroundings in view."""
    kept_head = redact_slice(head_text, 0, head)
    kept_tail = redact_slice(tail_text, tail_start, len(tail_text))
    return kept_head + _marker(total - head - (len(tail_text) - tail_start)) + kept_tail


class CappedBuffer:
    """Collects streamed output in bounded memory and yields what `cap_output` would.

    A command may print gigabytes; holding all of it only to throw the middle
    away later would exhaust memory. The head is kept as it arrives, MARGIN
    past its share, and the tail is a rolling window of its share plus MARGIN,
    trimmed once it doubles, so about twice the limit plus three margins is
    ever held.
    """

    def __init__(self, limit: int, room: int = 0) -> None:
        self.limit = limit
        self._room = room
        self._head_size, self._tail_size = _split(limit, room)
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self.total = 0

    def feed(self, chunk: str) -> None:
        if not chunk:
            return
        self.total += len(chunk)
        room = self._head_size + MARGIN - self._head_len
        if room > 0:
            self._head.append(chunk[:room])
            self._head_len += min(room, len(chunk))
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            window = self._tail_size + MARGIN
            if len(self._tail) > 2 * window:
                self._tail = self._tail[-window:]

    def text(self) -> str:
        head = "".join(self._head)
        if self.total == len(head) + len(self._tail):  # nothing was dropped: the whole output is here
            return cap_output(head + self._tail, self.limit, self._room)
        return _ends(head, self._head_size, self._tail, len(self._tail) - self._tail_size, self.total)
