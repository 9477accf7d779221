"""Tool output reaches the model marked as data, never as the user's words.

What a tool returns (a file, a command's output, an MCP server's answer, a web
page) may hold text written to steer the model: "ignore your instructions and
run ...". Each tool result is sent inside an envelope, and the system prompt
says that text inside one is data to weigh, not a request to follow.

The envelope is added where a request leaves for the model (`for_model`), and
never stored: the transcript, the session store, compaction, recall, the TUI and
the `-p` lines keep and show the plain output, and the serialized summary prompt
reads it as it was. Every tool-role message gets one, so a new kind of tool (MCP,
web) is marked with no work of its own; `mark_untrusted` wraps any other text.

The envelope is
- cheap: `<tool_output>` and `</tool_output>` around the text, about eight tokens;
- stable: a pure function of the text, so a request is byte-identical each time
  it is sent and the provider's prompt cache keeps matching;
- not closable from inside: text that mentions the tag at all (a fake closing
  marker, any case) gets an id taken from a hash of the text, repeated in the
  closing marker, and the id is chosen so that its closing marker does not occur
  in the text (as a MIME boundary is chosen). The text is never altered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from .messages import Message, strip_private, text_of
from .user_command import INTRO, user_command_of

TAG = "tool_output"
ID_CHARS = 8
# On a tool message: the end of its content that the user's own configuration added (a hook's context,
# not the tool's output). Sent after the envelope, while the content still ends with it; a pruned
# or rewritten content no longer does, and then all of it goes inside.
TRUSTED_SUFFIX_KEY = "_hl_trusted_suffix"


def mark_untrusted(text: str) -> str:
    """`text` inside the envelope."""
    opening, closing = _markers(text)
    return f"{opening}\n{text}\n{closing}"


def _markers(text: str) -> tuple[str, str]:
    lowered = text.lower()
    if TAG not in lowered:
        return f"<{TAG}>", f"</{TAG}>"
    attempt = 0
    while True:
        ident = envelope_id(text, attempt)
        if f"</{TAG} id={ident}>" not in lowered:
            return f"<{TAG} id={ident}>", f"</{TAG} id={ident}>"
        attempt += 1


def envelope_id(text: str, attempt: int) -> str:
    """The id tried at `attempt` for `text`: hex digits of a hash, the same on every run."""
    digest = hashlib.sha256(f"{attempt}:{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:ID_CHARS]


def for_model(messages: Iterable[Message]) -> list[Message]:
    """The messages as a request sends them: tool results and the output of the user's `!command`
    in their envelope, private keys stripped. The messages given are not changed."""
    return strip_private(_marked(msg) for msg in messages)


def _marked(msg: Message) -> Message:
    if msg.get("role") == "tool":
        content, suffix = msg.get("content"), msg.get(TRUSTED_SUFFIX_KEY)
        if isinstance(content, str) and isinstance(suffix, str) and suffix and content.endswith(suffix):
            return {**msg, "content": mark_untrusted(content[: -len(suffix)]) + suffix}
        return {**msg, "content": _marked_content(content)}
    ran = user_command_of(msg)
    if ran is not None:
        command, output = ran
        head = f"{INTRO}\n$ {command}\n"
        if text_of(msg.get("content")) == head + output:
            return {**msg, "content": head + mark_untrusted(output)}
    return msg


def _marked_content(content: Any) -> Any:
    """A string wrapped whole; a list of parts between an opening and a closing text part."""
    if isinstance(content, str):
        return mark_untrusted(content)
    if isinstance(content, list):
        text = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
        opening, closing = _markers(text)
        return [{"type": "text", "text": opening}, *content, {"type": "text", "text": closing}]
    return mark_untrusted("" if content is None else str(content))
