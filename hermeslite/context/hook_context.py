"""What hooks add to the transcript for the model, and the user's words without it.

A SessionStart or UserPromptSubmit hook's context goes after the prompt in the
user message, a PreToolUse or PostToolUse hook's after a tool result, each under
a line naming the hook event, so the model knows where the text came from. What
is saved is what was sent; readers that show the user their own words (a
resumed chat's bubble, the session title) split the prompt's hook context off.
"""

from __future__ import annotations

import re

from .redact import redact_secrets

PROMPT_EVENTS = ("SessionStart", "UserPromptSubmit")  # the events whose context follows the prompt
SEPARATOR = "\n\n"  # between the prompt (or a tool result) and each hook's part
_PROMPT_FRAME = re.compile(rf"{SEPARATOR}\[from a ({'|'.join(PROMPT_EVENTS)}) hook\]\n")


def framed(event: str, text: str, *, head: str | None = None) -> str | None:
    """What a hook adds for the model, under a line that says where it came from; secrets masked."""
    if not text:
        return None
    return f"{head or f'[from a {event} hook]'}\n{redact_secrets(text)}"


def with_parts(text: str, parts: list[str | None]) -> str:
    """`text` with the hooks' framed parts after it (none: `text` unchanged)."""
    return SEPARATOR.join([text, *(part for part in parts if part)])


def split_hook_context(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The prompt as typed, and the (hook event, context) pairs that followed it in the message."""
    parts = _PROMPT_FRAME.split(text)
    typed, rest = parts[0], parts[1:]
    return typed, [(rest[i], rest[i + 1].strip()) for i in range(0, len(rest), 2)]
