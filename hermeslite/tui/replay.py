"""Redrawing a saved transcript after /resume, in the same widgets a live turn uses.

A resumed session should look like the one the user left: their messages,
the replies, tool panels with results (a `!command` as the user typed it,
with its panel), and the handoff summary as a card (it is what the model now
sees in place of the older turns).
"""

from __future__ import annotations

import json

from hermeslite.context.attachments import file_label, split_attachments
from hermeslite.context.exit_codes import exit_code_of
from hermeslite.context.handoff import has_handoff, split_handoff
from hermeslite.context.hook_context import split_hook_context
from hermeslite.context.messages import call_arguments, call_id, call_name, text_of, tool_calls_of
from hermeslite.context.user_command import user_command_of
from hermeslite.display import clip
from hermeslite.store.todos import strip_snapshots

from .widgets.chat_view import ChatView
from .widgets.message import NoteLine

HOOK_NOTE_CHARS = 160


async def replay(chat: ChatView, messages: list[dict]) -> None:
    """Mount one widget per visible message; the system prompt is not shown."""
    for msg in strip_snapshots(messages):
        role = msg.get("role")
        if role == "system":
            continue
        if has_handoff(msg):
            await _summary(chat, msg)
        elif (ran := user_command_of(msg)) is not None:
            await _user_command(chat, *ran, exit_code_of(msg))
        elif role == "user":
            await _user_message(chat, text_of(msg.get("content")))
        elif role == "assistant":
            await chat.add_assistant(text_of(msg.get("content")))
            for call in tool_calls_of(msg):
                await chat.tool_started(call_id(call), call_name(call), call_arguments(call))
        elif role == "tool":
            content, code = text_of(msg.get("content")), exit_code_of(msg)
            # As the live panel showed it: a refusal, or a command that exited non-zero.
            chat.tool_finished(str(msg.get("tool_call_id")), content, content.startswith("error") or bool(code), code)


async def _user_command(chat: ChatView, command: str, output: str, exit_code: int | None) -> None:
    panel_id = f"user-command-{len(chat.children)}"
    await chat.add_user(f"!{command}")
    await chat.tool_started(panel_id, "terminal", json.dumps({"command": command}))
    chat.tool_finished(panel_id, output, exit_code != 0, exit_code)


async def _summary(chat: ChatView, msg: dict) -> None:
    body, rest = split_handoff(msg)
    await chat.mount(
        NoteLine(
            f"⟳ earlier turns were compacted into a summary ({len(body):,} characters)", classes="note -compaction"
        )
    )
    if isinstance(rest, str) and rest.strip() and msg.get("role") == "user":
        await chat.add_user(rest)


async def _user_message(chat: ChatView, content: str) -> None:
    """What the user typed in their bubble, then a note per hook that added context for the model
    and a note naming the files their `@` mentions attached: the saved message holds all three,
    and only the first is the user's words."""
    sent, files = split_attachments(content)
    typed, added = split_hook_context(sent)
    await chat.add_user(typed)
    for event, context in added:
        await chat.add_note(f"context from a {event} hook: {clip(context, HOOK_NOTE_CHARS)}")
    if files:
        await chat.add_note("attached: " + ", ".join(file_label(path, lines) for path, lines in files))
