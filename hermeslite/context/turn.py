"""The turn in progress: kept whole by every compaction, its largest results shortened to fit.

A compaction that summarizes away the tool calls and results of the turn it
runs in leaves the model looking at the user's request with no answer after
it, and a model that sees an unanswered request does it again: the command
runs, its output overflows, the compaction removes it, the command runs
again. So the messages from the latest user message on are never
summarized. When they alone are more than a compacted request has room for,
their largest tool results are cut to their head and tail, the largest
first, down to a common length (never below `RESULT_FLOOR` characters); each
cut says how much it removed and which recall id brings the whole back (the
original goes to the session archive). Huge tool-call arguments of the turn
are shortened too when that is not enough. What still does not fit under
the threshold is reported, so the agent can stop the turn instead of
compacting again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .handoff import has_handoff, split_handoff
from .messages import ARCHIVE_KEY, Message, is_summary, reference_id
from .prune import shrink_arguments
from .tokens import CHARS_PER_TOKEN, message_tokens

RESULT_FLOOR = 800  # characters a shortened result keeps at least: its first and last lines
HEAD_SHARE = 0.4  # of what a shortened result keeps, from its start; failures are reported last
ROUNDS = 3
CUT = re.compile(r"\n…\[(\d+) of (\d+) characters cut to fit the context window; [^\]]*\]…\n")
_CUT_IDS = re.compile(r"recall id (r[0-9a-f]{10})")


def cut_marker(cut: int, total: int, ref: str, inner: list[str]) -> str:
    """What stands where the middle of a shortened result was: how much went, and how to get it back.

    `inner` are recall ids the removed middle itself named (a capped output's
    archive id), so the way to them is not cut away with it.
    """
    also = "".join(f"; the cut part named recall id {r}" for r in inner)
    return (
        f"\n…[{cut} of {total} characters cut to fit the context window; recall id {ref}: "
        f'recall(id="{ref}") returns the whole{also}]…\n'
    )


def is_user_turn(msg: Message) -> bool:
    """Whether `msg` begins a user turn: a user message of the user's own, including one a
    checkpoint was merged into (the user's text follows it), never a standalone checkpoint."""
    if msg.get("role") != "user":
        return False
    if not is_summary(msg) and not has_handoff(msg):
        return True
    return split_handoff(msg)[1] is not None


def turn_start(messages: list[Message]) -> int | None:
    """Index of the latest real user message: where the turn in progress begins."""
    for i in range(len(messages) - 1, -1, -1):
        if is_user_turn(messages[i]):
            return i
    return None


def user_turns(messages: list[Message]) -> list[int]:
    """Where each user turn of `messages` begins, oldest first (user turn N is at index N - 1)."""
    return [i for i, msg in enumerate(messages) if is_user_turn(msg)]


def upto_problem(messages: list[Message], upto: int) -> str | None:
    """Why `/compress --upto <upto>` cannot run on `messages`, or None: it takes the number of a user
    turn in the transcript as it is (after the last checkpoint), and the latest turn is always kept."""
    count = len(user_turns(messages))
    if count < 2:
        return "there is only one user turn since the last checkpoint, and the latest turn is always kept"
    if not 1 <= upto < count:
        return (
            f"--upto takes a user turn from 1 to {count - 1}: the transcript holds {count} user turns since "
            "the last checkpoint, and the latest is always kept"
        )
    return None


@dataclass
class TurnFit:
    """What fitting the turn in progress did: the transcript after it and the originals it cut."""

    messages: list[Message]
    tokens: list[int]  # per message of `messages`
    archived: dict[str, Message] = field(default_factory=dict)
    shortened: int = 0  # tool results cut to their head and tail
    saved: int = 0  # estimated tokens the cuts saved
    turn_tokens: int = 0  # the turn's messages after the user message, after the cuts

    @property
    def changed(self) -> bool:
        return bool(self.archived)


def fit_turn(messages: list[Message], tokens: list[int], start: int, room: int) -> TurnFit:
    """Cut the turn's largest results (messages after index `start`) until they take at most `room`
    estimated tokens, never below RESULT_FLOOR characters each; then shorten its huge tool-call
    arguments if that was not enough. `messages` is not modified."""
    out, counts = list(messages), list(tokens)
    fit = TurnFit(out, counts, turn_tokens=sum(counts[start + 1 :]))
    results = [i for i in range(start + 1, len(out)) if out[i].get("role") == "tool" and _cuttable(out[i])]
    for _ in range(ROUNDS):  # a second round only when the estimate's rounding fell short
        if fit.turn_tokens <= room:
            break
        level = _level(out, results, fit.turn_tokens - room)
        for i in results:
            if len(_kept_text(out[i]["content"])) > level:
                shorter = _shorten(out[i], level)
                if message_tokens(shorter) < counts[i]:  # a cut just over the floor can cost more than it saves
                    _replace(fit, i, shorter)
        if level == RESULT_FLOOR:
            break
    if fit.turn_tokens > room:
        for i in range(start + 1, len(out)):
            if out[i].get("role") == "assistant" and (shrunk := shrink_arguments(out[i])) is not None:
                _replace(fit, i, shrunk)
    return fit


def _cuttable(msg: Message) -> bool:
    content = msg.get("content")
    return isinstance(content, str) and len(content) > RESULT_FLOOR


def _kept_text(content: str) -> str:
    """What a result keeps of its output: all of it, or the two ends an earlier cut left."""
    return CUT.sub("", content, count=1)


def _level(messages: list[Message], results: list[int], excess: int) -> int:
    """The longest common length the results can be cut to so that they save `excess` tokens, at
    least RESULT_FLOOR; a fresh cut costs its marker, and each message's count rounds up a token."""
    sizes = [(len(_kept_text(messages[i]["content"])), bool(CUT.search(messages[i]["content"]))) for i in results]
    marker = len(cut_marker(10**9, 10**9, "r0000000000", []))
    need = (excess + len(results)) * CHARS_PER_TOKEN

    def saving(level: int) -> int:
        return sum(size - level - (0 if cut else marker) for size, cut in sizes if size > level)

    low, high = RESULT_FLOOR, max((size for size, _ in sizes), default=RESULT_FLOOR)
    if saving(low) < need:
        return low
    while low < high:  # the largest level that still saves enough
        mid = (low + high + 1) // 2
        if saving(mid) >= need:
            low = mid
        else:
            high = mid - 1
    return low


def _shorten(msg: Message, keep: int) -> Message:
    """`msg` with its content cut to about `keep` characters: head, marker, tail.

    A result an earlier pass already shortened is cut again from the two ends
    it kept, under the same recall id, so the way back to the whole is never
    cut away.
    """
    content = msg["content"]
    earlier = CUT.search(content)
    ref = msg.get(ARCHIVE_KEY) if earlier else None
    if earlier and ref:
        head_text, tail_text = content[: earlier.start()], content[earlier.end() :]
        total = int(earlier.group(2))
    else:
        ref, head_text, tail_text, total = reference_id(msg), content, "", len(content)
    whole = head_text + tail_text
    head = int(keep * HEAD_SHARE)
    tail = keep - head
    if tail_text:
        head, tail = min(head, len(head_text)), min(tail, len(tail_text))
        kept_head, kept_tail = head_text[:head], tail_text[len(tail_text) - tail :]
    else:
        kept_head, kept_tail = whole[:head], whole[len(whole) - tail :]
    middle = whole[len(kept_head) : len(whole) - len(kept_tail)]
    named = (earlier.group(0) if earlier else "") + middle  # what an earlier cut's marker named goes on
    inner = [r for r in dict.fromkeys(_CUT_IDS.findall(named)) if r != ref]
    new = dict(msg)
    new["content"] = kept_head + cut_marker(total - len(kept_head) - len(kept_tail), total, ref, inner) + kept_tail
    new[ARCHIVE_KEY] = ref
    return new


def _replace(fit: TurnFit, i: int, new: Message) -> None:
    old = fit.messages[i]
    if new.get(ARCHIVE_KEY) != old.get(ARCHIVE_KEY):
        fit.archived[new[ARCHIVE_KEY]] = old
    if old.get("role") == "tool":
        fit.shortened += 1
    size = message_tokens(new)
    fit.saved += fit.tokens[i] - size
    fit.turn_tokens -= fit.tokens[i] - size
    fit.messages[i], fit.tokens[i] = new, size
