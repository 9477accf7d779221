"""Summary requests at a scripted server: telling them apart from turns, and answering them.

The engine asks for a summary in two shapes: the serialized prompt (one user
message) or, when the main model summarizes, the live conversation with the
checkpoint instruction appended as its last user message.
"""

from __future__ import annotations

from typing import Any

from hermeslite.context.summary_prompt import INSTRUCTION_OPEN, INTRO, SECTIONS
from tests.server import Reply, ScriptedServer


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text") or "") for part in content if isinstance(part, dict))
    return str(content or "")


def is_serialized_summary(body: dict[str, Any]) -> bool:
    msgs = body["messages"]
    return len(msgs) == 1 and INTRO in _text(msgs[0])


def is_extension_summary(body: dict[str, Any]) -> bool:
    msgs = body["messages"]
    return bool(msgs) and msgs[-1].get("role") == "user" and INSTRUCTION_OPEN in _text(msgs[-1])


def is_summary_request(body: dict[str, Any]) -> bool:
    return is_serialized_summary(body) or is_extension_summary(body)


def summary_instruction(body: dict[str, Any]) -> str:
    """The text that asks for the checkpoint: the whole prompt, or the appended instruction."""
    return _text(body["messages"][0] if is_serialized_summary(body) else body["messages"][-1])


def checkpoint(body: str = "None.") -> str:
    """A well-formed checkpoint: every section the summary prompt asks for, each holding `body`."""
    return "\n".join(f"## {name}\n{body}" for name, _ in SECTIONS)


def answer_summaries(server: ScriptedServer, text: str | None = None) -> None:
    """Summary requests get `text` (a well-formed checkpoint by default); everything else goes to the queue."""
    reply = text if text is not None else checkpoint()
    server.responder = lambda body: Reply.text(reply) if is_summary_request(body) else None
