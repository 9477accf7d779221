"""What a summarizer hands back: the text, and how the model ended it.

A reply's text alone cannot say that the model stopped at its output limit
halfway through Critical Values, or that the provider flagged it as a
refusal; both look like a plain string. The summarizer callable may return a
`SummaryReply` carrying those signals (a bare string still works and means a
finished reply), and the engine rejects what it cannot trust.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SummaryReply:
    text: str
    finish_reason: str | None = None  # "length": cut off at the model's output limit
    refusal: str | None = None  # the provider's refusal field (OpenAI's message.refusal)


def as_reply(reply: str | SummaryReply | None) -> SummaryReply:
    """Either shape a summarizer may return, as a `SummaryReply`."""
    if isinstance(reply, SummaryReply):
        return reply
    return SummaryReply(text=str(reply or ""))
