"""The text behind /context, /sessions, /memory, /todo and /help.

Pure functions from agent state to text, so each view is testable and the
screens stay dumb. /context is the one users steer by: it shows where the
tokens go, each part against the window, and where compaction fires.
"""

from __future__ import annotations

import time

from hermeslite.display import format_cost
from hermeslite.store.usage import UsageTotals

from .format import bar, k, short_path

BAR = 20
KEYS = (
    ("Enter", "send (during a turn: queue it, sent when the turn ends)"),
    ("Shift+Enter / Ctrl+J", "new line"), ("Up / Down", "history (first / last line)"),
    ("Up on an empty input", "take the last queued message back to edit it"),
    ("Tab", "complete a /command"), ("Esc", "back to the input; there, cancel the running turn"),
    ("PageUp / PageDown", "scroll the conversation"), ("Ctrl+End", "jump to the newest message"),
    ("Ctrl+O", "expand or collapse the newest tool panel or compaction card"),
    ("Ctrl+P", "command palette"), ("Ctrl+C twice", "quit (the session is saved)"),
)
SHELL_HELP = (
    "!command (e.g. !pytest -q) runs a shell command yourself, through the",
    "terminal tool: same approval rules, output cap and sandbox. The command",
    "and its output join the conversation for your next message; the model",
    "is not called. The embedded model (used when no model is configured)",
    "chats but does not call tools: !command is how to show it the output.",
)


def threshold_bar(ratio: float, threshold_ratio: float, width: int = BAR) -> str:
    """A bar of the whole window with `│` where compaction fires."""
    cells = list(bar(ratio, width))
    mark = min(width - 1, max(0, round(threshold_ratio * width)))
    cells[mark] = "│"
    return "".join(cells)


def context_view(breakdown, last_prompt_tokens: int | None = None, usage: UsageTotals | None = None) -> str:
    """Each part in tokens and % of the window, the total against the threshold, then the session's usage."""
    window, threshold = breakdown.context_length, breakdown.threshold
    pct = breakdown.percent_of_window
    lines = [f"Window {k(window)} tokens · compaction at {k(threshold)} ({pct(threshold):.0f}% of the window)"]
    if breakdown.window_source:
        lines.append(f"Window: {breakdown.window_source}")
    if breakdown.threshold_rule:
        lines.append(f"Why there: {breakdown.threshold_rule}")
    lines += ["", f"  {'part':<15}{'tokens':>8}{'% window':>10}"]
    for part in breakdown.parts:
        lines.append(f"  {part.name:<15}{k(part.tokens):>8}{pct(part.tokens):>9.1f}%  "
                     f"{bar(part.tokens / window if window else 0, BAR)}")
    total = breakdown.total
    lines += ["  " + "─" * 55,
              f"  {'total':<15}{k(total):>8}{pct(total):>9.1f}%  {threshold_bar(total / window if window else 0, threshold / window if window else 0)}",
              f"  {'threshold':<15}{k(threshold):>8}{pct(threshold):>9.1f}%  │ compaction: "
              + (f"{k(threshold - total)} tokens left" if total < threshold else "due now")]
    if last_prompt_tokens:
        lines.append(f"  {'last request':<15}{k(last_prompt_tokens):>8}{pct(last_prompt_tokens):>9.1f}%  "
                     "(counted by the provider)")
    if usage is not None and usage.requests:
        lines += ["", *usage_lines(usage)]
    lines += ["", "/compress [focus] compacts now, keeping [focus] in detail."]
    return "\n".join(lines)


def usage_lines(usage: UsageTotals) -> list[str]:
    """The session's model requests: input split by how the provider billed it, output, cost."""
    plural = "s" if usage.requests != 1 else ""
    return [
        f"Session usage · {usage.requests} model request{plural} · cost {format_cost(usage)} (litellm's prices)",
        f"  {'input':<15}{k(usage.prompt_tokens):>8}  read from cache {k(usage.cache_read_tokens)} "
        f"({round(100 * usage.cache_hit_rate)}%)",
        f"  {'':<15}{'':>8}  written to cache {k(usage.cache_write_tokens)}, uncached {k(usage.uncached_tokens)}",
        f"  {'output':<15}{k(usage.completion_tokens):>8}",
    ]


def sessions_view(sessions: list, current: str | None) -> str:
    if not sessions:
        return "No saved sessions yet."
    lines = [f"  {'ID':<23} {'LAST ACTIVE':<16} {'MSGS':>5}  TITLE"]
    for s in sessions:
        mark = "●" if s.id == current else " "
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.updated_at))
        origin = f"  (handed off from {s.parent_id})" if s.parent_id else ""
        lines.append(f"{mark} {s.id:<23} {stamp:<16} {s.message_count:>5}  {s.title or ''}{origin}")
    return "\n".join(lines + ["", "/resume opens a picker; /resume <id prefix> opens one directly."])


def memory_view(memory) -> str:
    parts = []
    for target, label in (("memory", "MEMORY.md (the agent's notes)"), ("user", "USER.md (about you)")):
        used, limit = memory.usage(target)
        entries = memory.entries(target)
        parts.append(f"{label} · {used}/{limit} chars · {short_path(memory.path(target))}")
        parts += [f"  • {entry}" for entry in entries] or ["  (empty)"]
        parts.append("")
    parts.append("Memory enters the system prompt when a session starts and after each compaction.")
    return "\n".join(parts)


def todo_view(todos) -> str:
    return todos.render()


def help_view(commands: list[tuple[str, str, str, bool]]) -> str:
    """Commands (⏸ marks those that wait for a running turn), `!command`, then the keys."""
    width = max(len(f"{name} {args}".strip()) for name, args, _, _ in commands) + 2
    lines = ["Commands"] + [f"{'⏸' if waits else ' '} {f'{name} {args}'.strip():<{width}}{help}"
                            for name, args, help, waits in commands]
    lines += ["", "⏸ typed during a turn, these wait in the queue with messages; the others run at once.",
              "", "Shell", *(f"  {line}" for line in SHELL_HELP)]
    lines += ["", "Keys"] + [f"  {key:<22}{what}" for key, what in KEYS]
    return "\n".join(lines)
