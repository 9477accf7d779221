"""The cache-aware summary request: the live conversation plus one instruction.

A summary request that shares no prefix with the conversation is billed in
full, and with a long transcript that is most of what a compaction costs. When
the main model writes the summary and the request fits its window, the agent
can instead send the request it just sent (same system prompt, tool schemas
and messages, byte for byte) with the checkpoint instruction appended as a
final user turn: the provider then reads the whole conversation from its
prompt cache.

Which request to extend: the one the agent last sent, not the transcript as
it is now. By the time a compaction runs, the transcript usually ends with
turns no request has carried yet (the model's last reply and the user's new
message, or a tool call and its result); extended, they would be written to
the cache rather than read from it, and at an 8k window they are up to a
quarter of the request. So when every message the checkpoint replaces (everything before
the kept tail) is inside the last request sent, and the transcript still
begins with that request unchanged, the summary extends it; otherwise (the
cut lies among the newer messages, the transcript was rewritten since, or no
request was sent in this process) it extends the current transcript. The
compressor is told how many messages that request carried (`sent_prefix`) and
keeps the newer ones verbatim when the tail cap allows (`boundaries.keep_unsent`),
so the cut lies among them only when they are too large to keep.

The engine decides when that path applies and writes the instruction; the
agent supplies `LiveRequests`, which know the requests and how to send them.
A separate `summary_model`, a reactive pass after an overflow, a slow model
that is given a capped excerpt, or a request that would not fit still use the
bounded, redacted serialized prompt. Either way the reply goes through the
same validation, anchors and redaction.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from .messages import Message, text_of
from .redact import redact_secrets
from .summary_prompt import INSTRUCTION_OPEN, SECTIONS
from .summary_reply import SummaryReply

SNIPPET_CHARS = 80


@dataclass(frozen=True)
class LiveRequest:
    """A request the agent built, which a summary request may extend.

    `messages` are the transcript messages it carries, as the agent holds
    them (the first of them at the transcript's index 0); `tokens` is what it
    carries in all (system prompt, tool schemas, messages); `send(instruction)`
    sends it again with `instruction` as one more user turn and returns the
    reply (its text, or a `SummaryReply` that also says how the model ended it).
    """

    messages: Sequence[Message]
    tokens: int
    send: Callable[[str], Awaitable[str | SummaryReply]]


@dataclass(frozen=True)
class LiveRequests:
    """What a summary request may extend: the request the agent would send now (the whole
    transcript) and the last one it sent, when it sent one in this process."""

    now: LiveRequest
    sent: LiveRequest | None = None


def carried(sent: Sequence[Message], now: Sequence[Message]) -> int | None:
    """How many leading messages of transcript `now` the request that carried `sent` holds, or None when
    the transcript no longer begins with them (it was rewritten since, or `sent` is the longer)."""
    if len(sent) > len(now):
        return None
    unchanged = all(a is b or a == b for a, b in zip(sent, now, strict=False))  # sent may be the shorter
    return len(sent) if unchanged else None


def sent_prefix(live: LiveRequests) -> int | None:
    """How many leading transcript messages the last request sent carried, when the transcript still
    begins with them: the compressor keeps the messages after them verbatim when it can (see
    `boundaries.keep_unsent`), so the summary can extend that request."""
    return None if live.sent is None else carried(live.sent.messages, live.now.messages)


def to_extend(live: LiveRequests, cut: int) -> LiveRequest:
    """The request a summary request extends when the kept tail starts at transcript index `cut`.

    The last request sent, when the transcript still begins with its
    messages unchanged and every message before `cut` is among them: its
    prefix is in the provider's cache up to its last message. Otherwise the
    request the agent would send now.
    """
    prefix = sent_prefix(live)
    return live.sent if live.sent is not None and prefix is not None and cut <= prefix else live.now


def fits(live: LiveRequest, instruction_tokens: int, reply_tokens: int, window: int) -> bool:
    """Whether the extended request and its reply fit the model's window."""
    return live.tokens + instruction_tokens + reply_tokens <= window


def build_instruction(
    kept: list[Message],
    *,
    has_previous: bool,
    focus: str | None,
    budget_tokens: int,
    today: str,
) -> str:
    """The final user turn of a cache-aware summary request.

    `kept` are the messages the request shows that stay in the context after
    the compaction (the end of what it shows): the model is told where they
    start, so the checkpoint covers what comes before them. More kept
    messages may follow that the request does not show (it is the last one
    sent, and turns came after it), so the wording holds either way; with
    none shown, the checkpoint covers everything shown.
    """
    headings = "\n".join(f"## {name}\n({hint})" for name, hint in SECTIONS)
    parts = [
        f"{INSTRUCTION_OPEN} Pause the task; do not reply or call tools. Write a checkpoint to replace the older "
        "part of the conversation above.",
        _scope(kept),
        "Use exactly these Markdown headings in this order; write 'None.' under any with nothing:",
        headings,
        "Rules:\n"
        "- Record facts; copy file paths, commands, exit codes, errors, names and numbers exactly.\n"
        "- Finished work: past tense, under Completed Actions, never as still to do.\n"
        "- Remaining Work and Pending User Asks are background for whoever continues, not orders.\n"
        "- Record questions and requests; do not answer or carry them out.\n"
        "- Never copy secrets (keys, tokens, passwords).\n"
        f"- Aim for about {budget_tokens} tokens. Reply with the checkpoint only.\n"
        f"- Today is {today}.",
    ]
    if has_previous:
        parts.append(
            "Fold in the earlier checkpoint (the handoff summary above): keep what still holds, let later "
            "messages win, move finished work to Completed Actions, drop nothing from Relevant Files or "
            "Critical Values."
        )
    if focus:
        parts.append(
            f'FOCUS: the user asked to keep everything about "{redact_secrets(focus)}": give it about two thirds '
            "of the length, in full detail (exact names, values, decisions); cover the rest briefly."
        )
    return "\n\n".join(parts)


def _scope(kept: list[Message]) -> str:
    if not kept:
        return (
            "All of the conversation above goes into this checkpoint (the messages kept after it are later "
            "ones, not shown): cover it in full."
        )
    first = kept[0]
    snippet = " ".join(text_of(first.get("content")).split())[:SNIPPET_CHARS]
    role = str(first.get("role"))
    where = (
        f'the {role} message that begins "{redact_secrets(snippet)}"'
        if snippet
        else (f"{'an' if role == 'assistant' else 'a'} {role} message")
    )
    count = "message" if len(kept) == 1 else f"{len(kept)} messages"
    return (
        f"From {where} on (the last {count} above), the conversation stays in the context: cover everything "
        "before it in full, the kept part only as the task needs."
    )
