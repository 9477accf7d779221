"""Reading tool results as a request carries them: out of the envelope `context.untrusted` puts them in."""

from __future__ import annotations

import re

from tests.server import ScriptedServer

_ENVELOPE = re.compile(r"\A<tool_output(?: id=[0-9a-f]+)?>\n(?P<text>.*)\n</tool_output(?: id=[0-9a-f]+)?>", re.DOTALL)


def unwrapped(content: str) -> str:
    """`content` without its envelope; what follows the closing tag (a hook's note) stays after the text.
    Content that was not wrapped fails the test: every tool result must be."""
    found = _ENVELOPE.match(content)
    assert found is not None, f"a tool result without its envelope: {content[:80]!r}"
    return found["text"] + content[found.end() :]


def sent_tool_results(server: ScriptedServer) -> list[str]:
    """The tool results the model's last request carried, in order, out of their envelopes."""
    return [unwrapped(m["content"]) for m in server.requests[-1]["messages"] if m["role"] == "tool"]
