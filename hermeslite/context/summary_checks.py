"""Checks a summary must pass before it becomes trusted history.

The summarizer reads untrusted text (tool output, fetched files, web pages)
and its answer is framed as the conversation's own record, so a checkpoint
is a path by which injected text could turn into an instruction the agent
follows after the compaction. Three kinds of answer are refused here:

- one that was cut off (`finish_reason == "length"`): its last sections are
  missing or half-written, and a half-written checkpoint reads as complete;
- a refusal, whether the provider flags it or the model writes an apology
  instead of a checkpoint;
- one containing instruction-shaped text ("ignore previous instructions",
  "you must now run ...") that no user message contains: only the user
  gives the agent orders, so such text came from a tool result or the model.

A refused summary is replaced by the checkpoint built from recorded facts,
and the reason is shown to the user.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .attachments import typed_text
from .clip import clip_line
from .messages import Message, text_of
from .summary_prompt import missing_sections
from .summary_reply import SummaryReply

QUOTE_CHARS = 80
WORD = re.compile(r"\w+")
OPENING_CHARS = 300

# A reply that opens with one of these and has no checkpoint sections is a refusal.
REFUSAL_OPENINGS = re.compile(
    r"^(?:i'?m|i am)\s+(?:sorry|afraid)\b.{0,120}?\b(?:can(?:not|'?t)|unable|won'?t|not able)\b"
    r"|^(?:sorry|unfortunately)\b.{0,120}?\b(?:can(?:not|'?t)|unable|won'?t|not able)\b"
    r"|^i\s+(?:can(?:not|'?t)|won'?t|am\s+unable\s+to|am\s+not\s+able\s+to|must\s+decline)\b"
    r"|^as an ai\b",
    re.IGNORECASE | re.DOTALL,
)

# Text that gives the reader orders rather than recording what happened. Each pattern is
# matched against the summary with whitespace collapsed; a match is allowed only when the
# same words appear in something the user wrote.
INSTRUCTION_SHAPES = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?"
        r"(?:previous|prior|earlier|above|preceding|original|system|former)\s+"
        r"(?:instructions?|prompts?|rules|messages|directions|guidelines|context)",
        r"\b(?:disregard|ignore|forget|override)\s+(?:the\s+|your\s+)?(?:system\s+prompt|system\s+message|guidelines)",
        r"\b(?:ignore|forget|disregard)\s+(?:everything|all)\s+(?:you\s+were\s+told|above|before|so\s+far)",
        r"\byou\s+(?:must|need\s+to|have\s+to)\s+(?:now|immediately)\s+\w+",
        r"\byou\s+(?:should|will|are\s+to)\s+(?:now|immediately)\s+(?:run|execute|call|delete|remove|send|post|upload|"
        r"download|install|push|open|visit|fetch|curl|wget|email|reveal|print|disable)\b",
        r"\bnew\s+(?:system\s+)?instructions?\s*:",
        r"\b(?:system\s+prompt|system\s+message)\s+(?:override|update)\b",
        r"\b(?:do\s+not|don'?t)\s+(?:tell|inform|alert|notify)\s+the\s+user\b",
        r"<\|?\s*im_start\s*\|?>|</?\s*system\s*>",
    )
)


def reply_problem(reply: SummaryReply, text: str) -> str | None:
    """Why a reply is no checkpoint whatever its shape: flagged as a refusal, cut off, or an
    apology in place of the checkpoint. `text` is the reply's cleaned text."""
    if reply.refusal and reply.refusal.strip():
        return f"the model refused to write the checkpoint ({_quote(reply.refusal)})"
    if reply.finish_reason == "length":
        return "the summary was cut off at the model's output limit"
    if REFUSAL_OPENINGS.search(text.strip()[:OPENING_CHARS]) and missing_sections(text):
        return f"the model answered with a refusal instead of a checkpoint ({_quote(text)})"
    return None


def user_texts(messages: Iterable[Message], previous: str | None) -> Iterator[str]:
    """What the user wrote in `messages`, and the checkpoint they build on (it passed these
    checks, or the user wrote it with /summary edit)."""
    for msg in messages:
        if msg.get("role") == "user":
            yield typed_text(text_of(msg.get("content")))  # an attached file's words are not the user's
    if previous:
        yield previous


def foreign_instruction(summary: str, user_texts: Iterable[str]) -> str | None:
    """Why `summary` is refused for instruction-shaped text the user never wrote, or None.

    A match is the user's when one thing the user wrote has all of its words
    ("ignore my previous instructions about tabs" covers a summary's "ignore
    previous instructions"), so a faithful paraphrase of the user passes.
    `user_texts` is read only when a pattern matches: a clean summary costs one
    scan of its own text.
    """
    flat = _flat(summary)
    matches = [m.group(0) for pattern in INSTRUCTION_SHAPES for m in pattern.finditer(flat)]
    if not matches:
        return None
    said = [_words(text) for text in user_texts]
    for match in matches:
        if not any(_words(match) <= words for words in said):
            return f'the summary contains instruction-shaped text no user message has ("{_quote(match)}")'
    return None


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def _flat(text: str) -> str:
    return " ".join(text.split())


def _quote(text: str) -> str:
    return clip_line(text, QUOTE_CHARS)
