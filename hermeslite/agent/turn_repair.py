"""What a turn that ends early (cancelled, or a failed model call) leaves in the transcript.

The transcript must stay provider-valid whatever happens: every tool call
answered, and the user's message never left without an assistant message
after it (two user messages in a row are rejected by some providers). The
notes written for that are ours, not the model's, so they are also how a
session that never got a real reply is recognised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .tool_runner import tool_call_name

CANCELLED_TOOL = "error: cancelled by the user before this tool finished"
CANCELLED_REPLY = "[reply cancelled by the user]"
NO_REPLY = "[no reply: the model call failed]"
# Text already shown when a call failed is kept (the user read it, the model should know it
# said it), marked so that neither takes it for a finished answer.
INCOMPLETE_REPLY = "[incomplete reply: the model call failed before the reply was finished]"
NOT_REPLIES = (NO_REPLY, CANCELLED_REPLY, None, "")  # assistant messages that are only our own notes


@dataclass
class Turn:
    """Bookkeeping for one user turn, so cancellation can repair what is half done."""

    partial: str = ""
    pending_calls: list[dict[str, Any]] | None = None
    answered: set[str] | None = None


def closing_messages(turn: Turn, last_role: str | None, note: str) -> list[dict[str, Any]]:
    """The messages that leave a valid transcript after `turn` ends early, `note` saying why:
    an answer to each unfinished call, the partial reply if any, and never the user's message
    without an answer. `last_role` is the role of the transcript's last message."""
    closing: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": call["id"], "name": tool_call_name(call), "content": CANCELLED_TOOL}
        for call in turn.pending_calls or []
        if call["id"] not in (turn.answered or set())
    ]
    if closing:
        last_role = "tool"
    if turn.partial.strip():
        closing.append({"role": "assistant", "content": f"{turn.partial}\n\n{note}"})
    elif last_role in ("user", "tool"):
        closing.append({"role": "assistant", "content": note})
    return closing


def has_reply(messages: list[dict[str, Any]]) -> bool:
    """Whether the model answered anything in `messages`: a tool call or text of its own."""
    return any(
        m.get("role") == "assistant" and (m.get("tool_calls") or m.get("content") not in NOT_REPLIES) for m in messages
    )
