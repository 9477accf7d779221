"""Capping tool output so one noisy command cannot flood the context window.

The head shows what a command started doing and the tail shows how it ended
(the error, the summary line, the exit status), so both are kept and the middle
is dropped. The tail gets the larger share because failures are reported last.
"""

from __future__ import annotations

from hermeslite.context.clip import keep_ends

HEAD_SHARE = 0.4


def _marker(omitted: int) -> str:
    return f"\n…[{omitted} chars omitted]…\n"


def _split(limit: int) -> tuple[int, int]:
    limit = max(limit, 2)
    head = int(limit * HEAD_SHARE)
    return head, limit - head


def cap_output(text: str, limit: int) -> str:
    """`text` unchanged when it fits in `limit` characters, else its head and tail around a marker."""
    if len(text) <= limit:
        return text
    return keep_ends(text, *_split(limit), _marker)


class CappedBuffer:
    """Collects streamed output in bounded memory and yields what `cap_output` would.

    A command may print gigabytes; holding all of it only to throw the middle
    away later would exhaust memory. The head is kept as it arrives and the
    tail is a rolling window trimmed once it doubles, so at most about twice
    the limit is ever held.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._head_size, self._tail_size = _split(limit)
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self.total = 0

    def feed(self, chunk: str) -> None:
        if not chunk:
            return
        self.total += len(chunk)
        room = self._head_size - self._head_len
        if room > 0:
            self._head.append(chunk[:room])
            self._head_len += min(room, len(chunk))
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            if len(self._tail) > 2 * self._tail_size:
                self._tail = self._tail[-self._tail_size :]

    def text(self) -> str:
        head = "".join(self._head)
        if self.total <= self.limit:
            return head + self._tail
        tail = self._tail[-self._tail_size :]
        return head + _marker(self.total - len(head) - len(tail)) + tail
