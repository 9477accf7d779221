"""The session as Markdown: a heading per message, tool calls and outputs folded in `<details>`.

Replies and the user's words are Markdown already and stay as written. What
is not (tool arguments and outputs, checkpoints, the system prompt) goes in a
code fence longer than any run of backticks inside it, so output that holds
a fence of its own cannot end the block early. Labels inside HTML tags are
escaped.
"""

from __future__ import annotations

import html
import re

from hermeslite.context.handoff import has_handoff
from hermeslite.context.messages import call_arguments, call_id, call_name, text_of, tool_calls_of

from .labels import IMAGE, ROLE_TITLES, call_label, facts, mark_detail, mark_title, pretty_arguments, result_label
from .view import CompactionMark, MessageEntry, SessionView

_BACKTICKS = re.compile(r"`+")


def fence(text: str, info: str = "") -> str:
    """`text` in a backtick fence no line inside can close."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    bar = "`" * max(3, longest + 1)
    return f"{bar}{info}\n{text.rstrip(chr(10))}\n{bar}"


def folded(summary: str, body: str, *, open_: bool = False) -> str:
    """A `<details>` block; the blank lines keep its body Markdown (CommonMark HTML blocks end at one)."""
    tag = "<details open>" if open_ else "<details>"
    return f"{tag}\n<summary>{html.escape(summary)}</summary>\n\n{body}\n\n</details>"


def render_markdown(view: SessionView) -> str:
    out = [f"# {view.title or 'Session ' + view.session_id}", "", _facts(view)]
    if view.system is not None:
        out += ["", folded(ROLE_TITLES["system"], fence(text_of(view.system.get("content")), "text"))]
    tools: dict[str, str] = {}
    for entry in view.entries:
        out.append("")
        if isinstance(entry, CompactionMark):
            out.append(_mark(entry))
        else:
            out.append(_message(entry, tools))
    if view.missing:
        out += [
            "",
            f"_{view.missing} message(s) the turn log names were found neither in the transcript nor the archive._",
        ]
    return "\n".join(out).rstrip() + "\n"


def _facts(view: SessionView) -> str:
    return "\n".join(f"- **{name}:** {value}" for name, value in facts(view, lambda text: f"`{text}`"))


def _mark(mark: CompactionMark) -> str:
    checkpoint = mark.record.summary or "(no checkpoint: this compaction only pruned old tool output)"
    return "\n".join(
        [
            "---",
            "",
            f"## {mark_title(mark)}",
            "",
            f"_{mark_detail(mark)}. The messages above were replaced by this checkpoint in what the model reads._",
            "",
            folded("Checkpoint", fence(checkpoint, "markdown"), open_=True),
            "",
            "---",
        ]
    )


def _message(entry: MessageEntry, tools: dict[str, str]) -> str:
    msg = entry.message
    role = str(msg.get("role"))
    if role == "tool":
        name = tools.get(str(msg.get("tool_call_id") or ""))
        return folded(result_label(msg, name), fence(text_of(msg.get("content"), IMAGE), "text"))
    text = text_of(msg.get("content"), IMAGE).strip()
    title = "Checkpoint (handed over)" if has_handoff(msg) else ROLE_TITLES.get(role, role)
    parts = [f"## {title}"]
    if text:
        parts += ["", fence(text, "markdown") if has_handoff(msg) else text]
    for call in tool_calls_of(msg):
        tools[call_id(call)] = call_name(call)
        parts += ["", folded(f"tool call · {call_label(call)}", fence(pretty_arguments(call_arguments(call)), "json"))]
    return "\n".join(parts)
