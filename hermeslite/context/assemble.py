"""Putting head, summary and tail back together into a valid transcript.

The summary's role is chosen so user and assistant still alternate; when no
role fits between its neighbours it is merged into the next message instead
of standing alone. Tool pairs are re-checked last because the cut may have
left a call or a result without its partner.
"""

from __future__ import annotations

from typing import Any

from .boundaries import Boundaries
from .handoff import has_handoff, merge_into, split_handoff, summary_message, with_system_note
from .messages import ANCHORS_KEY, REFILL_KEY, SUMMARY_KEY, Message
from .sanitize import sanitize_tool_pairs


def unwrap_handoffs(messages: list[Message]) -> list[Message]:
    """The transcript without earlier summaries: standalone ones dropped, merged ones
    restored to the message they were merged into.

    The earlier summary is carried into the next one as state, so leaving it in
    the transcript would either duplicate it or summarize it as if it were a turn.
    """
    out = []
    for msg in messages:
        if not has_handoff(msg):
            out.append(msg)
            continue
        _, rest = split_handoff(msg)
        if rest is not None:
            restored = {k: v for k, v in msg.items() if k not in (SUMMARY_KEY, ANCHORS_KEY, REFILL_KEY)}
            restored["content"] = rest
            out.append(restored)
    return out


def unwrapped_positions(messages: list[Message]) -> list[int]:
    """For each message of `unwrap_handoffs(messages)`, its index in `messages`."""
    return [i for i, msg in enumerate(messages) if not has_handoff(msg) or split_handoff(msg)[1] is not None]


def previous_junction(messages: list[Message]) -> int:
    """Where, in `unwrap_handoffs(messages)`, the newest standalone summary stood.

    A standalone summary was put between the previous head and tail to keep the
    roles alternating, so the messages on either side of it may share a role:
    once it is dropped, the next tail must start at or after this point.
    """
    junction = kept = 0
    for msg in messages:
        if has_handoff(msg) and split_handoff(msg)[1] is None:
            junction = kept
        else:
            kept += 1
    return junction


def assemble(messages: list[Message], bounds: Boundaries, summary: str, anchors: dict[str, Any]) -> list[Message]:
    """head + summary + tail, provider-valid."""
    head = list(messages[: bounds.head_end])
    rest = list(messages[bounds.tail_start :])
    if head and head[0].get("role") == "system":
        head[0] = with_system_note(head[0])
    before = [m for m in head if m.get("role") != "system"]
    role = "assistant" if before and before[-1].get("role") == "user" else "user"
    if rest and rest[0].get("role") == role:
        joined = [*head, merge_into(rest[0], summary, anchors), *rest[1:]]
    else:
        joined = [*head, summary_message(role, summary, anchors), *rest]
    return sanitize_tool_pairs(joined)
