"""The words every format shares: headings for roles, one-line labels for tool calls, outputs and compactions."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from hermeslite.context.messages import EXIT_CODE_KEY, Message, call_arguments, call_name, parsed_arguments

from .view import CompactionMark, SessionView

IMAGE = "[image]"
ROLE_TITLES = {"user": "User", "assistant": "Assistant", "system": "System prompt"}
LABEL_CHARS = 80
# The argument that says most about a call, per tool; other tools show their arguments' JSON.
MAIN_ARGUMENT = ("command", "path", "pattern", "query", "url", "action", "id")


def when(seconds: float) -> str:
    """A timestamp as UTC, to the second, as a reader in any time zone reads it the same."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


def facts(view: SessionView, code: Callable[[str], str]) -> list[tuple[str, str]]:
    """The session's facts as (name, value) rows; `code` marks an identifier as code in the format."""
    rows = [
        ("Session", code(view.session_id)),
        ("Model", code(view.model) if view.model else "unknown"),
        ("Mode", view.mode),
        ("Started", when(view.created_at)),
        ("Last activity", when(view.updated_at)),
        ("Compactions", str(len(view.compactions))),
    ]
    totals = view.totals
    if totals.requests:
        cost = f", ${totals.cost:.4f}" + ("" if totals.priced else " (some requests unpriced)")
        spent = f"{totals.prompt_tokens:,} in, {totals.completion_tokens:,} out{cost}"
        rows.append(("Usage", f"{totals.requests} requests, {spent}"))
    if view.parent_id:
        rows.append(("Handed off from", code(view.parent_id)))
    return rows


def one_line(text: str, limit: int = LABEL_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def call_label(call: dict[str, Any]) -> str:
    """`terminal: pytest -q`: the tool and its main argument, on one line."""
    args = parsed_arguments(call)
    main = next((str(args[key]) for key in MAIN_ARGUMENT if key in args), None)
    return f"{call_name(call)}: {one_line(main if main is not None else call_arguments(call))}"


def result_label(message: Message, tool: str | None) -> str:
    """`output of terminal (exit 1, 48 lines)`."""
    text = message.get("content")
    lines = len(str(text).splitlines()) if isinstance(text, str) else 0
    facts = [] if message.get(EXIT_CODE_KEY) is None else [f"exit {message[EXIT_CODE_KEY]}"]
    facts.append(f"{lines} line" + ("" if lines == 1 else "s"))
    return f"output of {tool or 'a tool'} ({', '.join(facts)})"


def mark_title(mark: CompactionMark) -> str:
    """`Compaction 2 · manual · 41,200 → 9,800 tokens`, with a fallback or focus said."""
    r = mark.record
    parts = [f"Compaction {mark.number}", r.trigger, f"{r.tokens_before:,} → {r.tokens_after:,} tokens"]
    if r.focus:
        parts.append(f"focus: {one_line(r.focus, 40)}")
    if r.fallback:
        parts.append("checkpoint built without the model")
    return " · ".join(parts)


def mark_detail(mark: CompactionMark) -> str:
    r = mark.record
    return f"{when(r.at)}: {r.messages_before} → {r.messages_after} messages in the transcript"


def pretty_arguments(arguments: str) -> str:
    """A call's arguments as indented JSON; as they came when they are not JSON (a truncated call)."""
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments
