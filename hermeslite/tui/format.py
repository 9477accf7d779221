"""Pure text helpers shared by the widgets: the pressure line, the warning, tool summaries.

Kept apart from the widgets so the wording users read (the pressure line, the
warning, a tool's one-line result) can be unit-tested without a running app,
and so the headless printer's conventions (42.1k, 96k) are matched exactly.
"""

from __future__ import annotations

import re

from hermeslite.context.exit_codes import without_exit_line
from hermeslite.display import bar, format_tokens

PREVIEW_LINES = 20
PREVIEW_CHARS = 2_000
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_ITEM = re.compile(r"^\s*([-*+]|\d{1,9}[.)])(\s|$)")
_QUOTE_MARKS = re.compile(r"^( {0,3}> ?)+")
_FENCE = ("```", "~~~")


def pressure_line(tokens: int, threshold: int, window: int, width: int = 10) -> str:
    """The status bar text: tokens against the compaction threshold, then the raw window."""
    ratio = tokens / threshold if threshold > 0 else 1.0
    return (
        f"{format_tokens(tokens)} / {format_tokens(threshold)} tokens · {int(ratio * 100)}% · {bar(ratio, width)}"
        f" · window {format_tokens(window)}"
    )


def warning_text(tokens: int, threshold: int, paused: bool = False) -> str:
    """The warning bar's sentence, with the command that fixes it; when the refill guard has paused
    automatic compaction, what to do instead."""
    percent = int(100 * tokens / threshold) if threshold > 0 else 100
    sizes = f"({format_tokens(tokens)} / {format_tokens(threshold)} tokens)"
    if paused:
        return (
            f"Context {percent}% of the way to compaction {sizes}, automatic compaction paused (it refilled "
            "within a turn 3 times) - /handoff, a bigger window, or /compress <focus>"
        )
    return f"Context {percent}% of the way to compaction {sizes} - /compress [focus] to compact now"


def size(text: str) -> str:
    """Human size of a tool result: lines and bytes."""
    lines = len(text.splitlines())
    nbytes = len(text.encode("utf-8", "replace"))
    shown = f"{nbytes} B" if nbytes < 1024 else f"{nbytes / 1024:.1f} kB"
    return f"{lines} line{'s' if lines != 1 else ''}, {shown}"


def result_summary(content: str, is_error: bool, exit_code: int | None) -> str:
    """`exit 0 · 12 lines, 1.2 kB` for commands (the size of their own output); the size (or
    `error`) for the others."""
    body = without_exit_line(content, exit_code)
    status = f"exit {exit_code}" if exit_code is not None else ("error" if is_error else "ok")
    return f"{status} · {size(body)}"


def preview(content: str) -> str:
    """The head of a result, for the expanded panel: enough to judge it, never the whole flood."""
    lines = content.splitlines()
    head = "\n".join(lines[:PREVIEW_LINES])[:PREVIEW_CHARS]
    hidden = len(lines) - min(len(lines), PREVIEW_LINES)
    return head + (f"\n… {hidden} more lines" if hidden > 0 else "")


def checkpoint_markdown(text: str) -> str:
    """A checkpoint as Markdown that renders cleanly in a narrow card.

    Checkpoints are written by models and by code, and two habits of theirs
    render badly: a line right after a list item or a quote is swallowed into
    it (Markdown's lazy continuation), so `Commands:` or `**Goal**` ends up
    glued to the bullet above; and quotes, nested or holding lists, draw
    empty quote bars. So headings and such lines get a blank line before
    them, quoted text is shown as plain text (its words are kept; the
    transcript itself is not touched), and consecutive lines of text keep
    their line breaks, since checkpoints are written line by line (`Goal: ...`
    under `Active Task: ...`). Code blocks pass through unchanged.
    """
    out: list[str] = []
    previous, fenced = "blank", False
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.lstrip().startswith(_FENCE) or fenced:
            fenced ^= line.lstrip().startswith(_FENCE)
            out.append(line)
            previous = "fence"
            continue
        if _QUOTE_MARKS.match(line):
            line = _QUOTE_MARKS.sub("", line)
            if not line.strip():
                continue
        kind = (
            "blank"
            if not line.strip()
            else "heading"
            if _HEADING.match(line)
            else "item"
            if _ITEM.match(line)
            else "indented"
            if line[:1] in (" ", "\t")
            else "text"
        )
        if (
            out
            and out[-1].strip()
            and (kind == "heading" or previous == "heading" or (kind == "text" and previous in ("item", "indented")))
        ):
            out.append("")
        elif kind == "text" and previous == "text":
            out[-1] = out[-1].rstrip() + "  "
        out.append(line)
        previous = kind
    return "\n".join(out).strip("\n")
