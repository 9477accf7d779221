"""OpenAI-format messages as the plain chat the embedded model's template gets.

SmolLM2's chat template knows system, user and assistant turns and nothing
else, and llama.cpp tokenizes the rendered prompt with special tokens on. So
before `local.py` renders a prompt, tool calls and results become text, turns
are merged into a strictly alternating chat, and text that looks like a
template token is defused. `reply_budget` then fits the answer into what the
window leaves. Everything here is pure: no model is loaded, so it is tested
without llama.cpp.
"""

from __future__ import annotations

import re
from typing import Any

from hermeslite.context.messages import call_arguments, call_id, call_name, text_of, tool_calls_of
from hermeslite.context.untrusted import for_model

from .errors import ContextOverflow

MIN_REPLY_TOKENS = 64  # a prompt must leave at least this much room for the answer

_SPECIAL = re.compile(r"<\|([A-Za-z_]+)\|>")


def _escape(text: str) -> str:
    """Keep text that looks like a template token (`<|im_end|>`) from becoming one."""
    return _SPECIAL.sub("<|\u200b\\1|>", text)


def to_chat_messages(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """OpenAI-format messages as the plain system/user/assistant chat SmolLM2's template knows.

    The model cannot call tools, so calls and results become text: an assistant
    call reads "(called terminal: {...})" and a tool result becomes a user
    block headed "[terminal result]". Leading system messages merge into one;
    a later one becomes a user note. Adjacent same-role turns are merged, the
    first turn after the system is a user turn and so is the last.
    """
    names: dict[str, str] = {}
    turns: list[tuple[str, str]] = []
    for msg in for_model(messages):
        role = str(msg.get("role") or "user")
        text = _escape(text_of(msg.get("content"), image_marker="[image]"))
        if role in ("system", "developer"):
            if all(r == "system" for r, _ in turns):
                turns.append(("system", text))
            else:
                turns.append(("user", f"[System note]\n{text}"))
        elif role == "assistant":
            lines = [text] if text.strip() else []
            for call in tool_calls_of(msg):
                name = call_name(call) or "a tool"
                names[call_id(call)] = name
                lines.append(f"(called {name}: {_escape(call_arguments(call))})")
            if lines:
                turns.append(("assistant", "\n".join(lines)))
        elif role in ("tool", "function"):
            name = msg.get("name") or names.get(str(msg.get("tool_call_id") or "")) or "tool"
            turns.append(("user", f"[{name} result]\n{text}"))
        else:
            turns.append(("user", text))

    merged: list[dict[str, str]] = []
    for role, text in turns:
        if merged and merged[-1]["role"] == role:
            merged[-1]["content"] += "\n\n" + text
        else:
            merged.append({"role": role, "content": text})
    first = 1 if merged and merged[0]["role"] == "system" else 0
    if len(merged) == first:
        merged.append({"role": "user", "content": "(no message)"})
    elif merged[first]["role"] == "assistant":
        merged.insert(first, {"role": "user", "content": "(continuing an earlier conversation)"})
    if merged[-1]["role"] == "assistant":
        merged.append({"role": "user", "content": "Please continue."})
    return merged


def reply_budget(prompt_tokens: int, n_ctx: int, max_tokens: int) -> int:
    """Tokens the answer may use: `max_tokens`, shrunk to the room left, never below a small reserve."""
    room = n_ctx - prompt_tokens
    if room < min(MIN_REPLY_TOKENS, max_tokens):
        if prompt_tokens >= n_ctx:
            msg = f"The prompt ({prompt_tokens} tokens) is larger than the embedded model's {n_ctx}-token window."
        else:
            msg = (
                f"The prompt ({prompt_tokens} tokens) leaves no room for an answer "
                f"in the embedded model's {n_ctx}-token window."
            )
        raise ContextOverflow(msg, limit=n_ctx)
    return min(max_tokens, room)
