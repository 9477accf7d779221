"""Where the kept head ends and the kept tail begins.

Everything between the two is what a compaction replaces with a summary. The
cut points must never separate an assistant's tool calls from their results,
and the turn in progress (the user's latest message and every call and result
after it) must survive verbatim: losing the message is how agents forget what
they were asked to do, and losing the calls is how they do it twice (see turn.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from .messages import Message, is_summary, tool_calls_of

MIN_TAIL_CAP = 8  # the minimum tail never needs more messages than this
SOFT_CEILING = 1.5  # the tail may overshoot its budget by half to end cleanly


@dataclass(frozen=True)
class Boundaries:
    head_end: int  # messages[:head_end] stay verbatim
    tail_start: int  # messages[tail_start:] stay verbatim

    def middle(self, messages: list[Message]) -> list[Message]:
        return messages[self.head_end : self.tail_start]

    @property
    def empty(self) -> bool:
        return self.tail_start <= self.head_end


def _group_end(messages: list[Message], i: int) -> int:
    """Index just past the tool results that answer message i's calls."""
    j = i + 1
    while j < len(messages) and messages[j].get("role") == "tool":
        j += 1
    return j


def head_end(
    messages: list[Message], protect_first_n: int, tokens: list[int] | None = None, cap: int | None = None
) -> int:
    """System prompt plus the first `protect_first_n` messages, never mid-group.

    The first kept message after the system prompt must be a user message; a
    head that would start otherwise shrinks to the system prompt alone.
    """
    start = 1 if messages and messages[0].get("role") == "system" else 0
    if protect_first_n <= 0 or start >= len(messages) or messages[start].get("role") != "user":
        return start
    end = min(len(messages), start + protect_first_n)
    while end < len(messages) and messages[end].get("role") == "tool":
        end += 1
    last = messages[end - 1]
    if last.get("role") == "assistant" and tool_calls_of(last):
        end = _group_end(messages, end - 1)
    if any(is_summary(m) for m in messages[start:end]):
        return start
    if cap is not None and tokens is not None and sum(tokens[start:end]) > cap:
        return start  # a huge opening exchange is not worth protecting; its asks become anchors
    return end


def tail_start(
    messages: list[Message],
    tokens: list[int],
    head: int,
    budget: int,
    min_messages: int,
    hard_cap: int | None = None,
    free: int | None = None,
) -> int:
    """Walk back from the newest message until the token budget is spent.

    At least `min_messages` are kept if they fit under `hard_cap`; past that, a
    message is added only while the tail is under budget and stays under the
    soft ceiling. Message `free` (the latest user message, kept whatever it
    costs) is not counted. The cut is then moved off any tool result: back to
    its call when that still fits under `hard_cap`, else forward past the results.
    """
    i, spent, count = len(messages), 0, 0
    while i > head:
        cost = 0 if i - 1 == free else tokens[i - 1]
        if count >= min_messages and (spent >= budget or spent + cost > budget * SOFT_CEILING):
            break
        if hard_cap is not None and spent + cost > hard_cap:
            break  # the minimum count yields: what does not fit the window goes into the summary
        spent += cost
        count += 1
        i -= 1
    aligned = align_to_group(messages, i, head)
    if hard_cap is not None and aligned < i and spent + sum(tokens[aligned:i]) > hard_cap:
        return _past_results(messages, i)
    return aligned


def _past_results(messages: list[Message], i: int) -> int:
    while i < len(messages) and messages[i].get("role") == "tool":
        i += 1
    return i


def align_to_group(messages: list[Message], i: int, head: int) -> int:
    """Move a cut off a tool result: back to its call, or forward if that hits the head."""
    if i >= len(messages) or messages[i].get("role") != "tool":
        return i
    j = i
    while j > head and messages[j].get("role") == "tool":
        j -= 1
    if messages[j].get("role") != "tool":
        return j
    return _past_results(messages, i)


def keep_unsent(
    messages: list[Message],
    tokens: list[int],
    head: int,
    tail: int,
    unsent: int,
    hard_cap: int | None,
    free: int | None,
    floor: int = 0,
) -> int:
    """The tail start moved back to `unsent` when the cut lies among messages no request carried.

    Messages from `unsent` on were added after the last request was sent (the
    model's last reply, a tool call and its result, the user's new message).
    A checkpoint that covers any of them cannot extend that request, whose
    prefix the provider has cached, and must write them to the cache again;
    kept verbatim instead, they stay exactly as the user saw them and the
    summary request reads everything it covers from the cache. The move is
    made only when the longer tail still fits `hard_cap` (the latest user
    message, `free`, not counted), the cut stays on a turn boundary and at or
    after `floor`, and something is left to summarize; otherwise the cut stays
    at `tail`. The tail walk keeps them
    already while it is under its minimum count, so this matters when its
    budget stopped it inside them (a small `protect_last_n`, a reply larger
    than the tail budget); when the hard cap stopped it, they do not fit.
    """
    cut = align_to_group(messages, unsent, head)
    if not head < cut < tail or cut < floor:
        return tail
    kept = sum(t for i, t in enumerate(tokens[cut:], cut) if i != free)
    if hard_cap is not None and kept > hard_cap:
        return tail
    return cut


def _first_kept(messages: list[Message]) -> int:
    return 1 if messages and messages[0].get("role") == "system" else 0


def latest_user_index(messages: list[Message]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user" and not is_summary(messages[i]):
            return i
    return None


def find_boundaries(
    messages: list[Message],
    tokens: list[int],
    *,
    protect_first_n: int,
    tail_budget: int,
    protect_last_n: int,
    force: bool = False,
    tail_floor: int = 0,
    head_cap: int | None = None,
    tail_cap: int | None = None,
    unsent: int | None = None,
    upto: int | None = None,
) -> Boundaries:
    """Head and tail for one compaction; the tail always holds the whole turn in progress.

    With `force` (the manual /compress) a transcript that fits entirely in the
    tail budget is still compacted, keeping only the latest user turn. The tail
    never starts before `tail_floor` (where a dropped earlier summary stood).
    `head_cap` and `tail_cap` (head and tail together, the latest user message
    not counted) stop a few very large messages from being protected
    wholesale, which would leave nothing to compact or overflow the window;
    the turn in progress is kept whatever it costs (turn.py has shortened it
    to fit first), and the opening exchange gives way to it.
    `unsent` is the first message no request has carried yet (see `keep_unsent`).
    `upto` is the user's own cut (`/compress --upto N`): everything before it
    is summarized and everything from it on kept, whatever the budgets say.
    """
    first = _first_kept(messages)
    if upto is not None:
        return Boundaries(head_end=first, tail_start=max(upto, first))
    user = latest_user_index(messages)
    head = head_end(messages, protect_first_n, tokens, head_cap)
    if user is not None and user < head:
        head = user  # the summary must come before the latest ask, never after it
    turn = sum(tokens[user + 1 :]) if user is not None else 0
    hard = None if tail_cap is None else max(0, tail_cap - sum(tokens[first:head]))
    if hard is not None and tail_cap is not None and turn > hard and head > first:
        head, hard = first, tail_cap  # the turn in progress is kept before the opening exchange is
    min_tail = max(1, min(protect_last_n, MIN_TAIL_CAP))
    tail = max(tail_start(messages, tokens, head, tail_budget, min_tail, hard, free=user), tail_floor)
    if unsent is not None:
        tail = keep_unsent(messages, tokens, head, tail, unsent, hard, user, tail_floor)
    if force and tail <= max(head + 1, tail_floor) and user is not None and user > head:
        tail = max(user, tail_floor)  # everything fits the tail: the manual /compress keeps only the latest turn
    if user is not None:
        tail = min(tail, user)  # the turn in progress is never summarized
    return Boundaries(head_end=head, tail_start=max(tail, head))
