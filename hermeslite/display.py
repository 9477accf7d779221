"""Text conventions shared by every front end (the TUI and the headless printer).

Both show the same numbers and the same one-line description of a tool call,
so they are written once here rather than kept in step by hand. And both pass
every text they did not write themselves (the model's reply, tool output,
file contents, error bodies from a server) through `neutralize` before it
reaches a terminal.
"""

from __future__ import annotations

import json
from pathlib import Path

from hermeslite.context.clip import clip_line
from hermeslite.context.result import format_tokens, plural
from hermeslite.store.usage import UsageTotals

__all__ = [
    "KEY_ARGUMENTS",
    "bar",
    "compaction_cost",
    "format_cost",
    "format_tokens",
    "key_argument",
    "neutralize",
    "plural",
    "session_usage",
    "short_path",
]

# The argument worth showing for each kind of tool call, in order of preference.
KEY_ARGUMENTS = ("command", "path", "pattern", "query", "id", "action", "target", "todos")
# What names an item of a list argument (a todo's content), in order of preference.
ITEM_KEYS = ("content", "name", "path", "id")


def key_argument(arguments: str, limit: int = 60) -> str:
    """The one argument that says what a tool call does (its command, path or pattern), on one line."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return clip(arguments, limit)
    if not isinstance(args, dict):
        return clip(plain(args), limit)
    for key in KEY_ARGUMENTS:
        if key in args:
            return clip(plain(args[key]), limit)
    return clip(", ".join(f"{name}={plain(value)}" for name, value in list(args.items())[:2]), limit)


def plain(value: object) -> str:
    """An argument value as a person would write it: a todo list reads `2 items: write the schema,
    add tests`, never as a Python repr with quotes and braces."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return f"{plural(len(value), 'item')}: " + ", ".join(plain(item) for item in value) if value else "none"
    if isinstance(value, dict):
        named = next((value[key] for key in ITEM_KEYS if value.get(key) not in (None, "")), None)
        if named is not None and (len(value) == 1 or "content" in value or "name" in value):
            return plain(named)
        return ", ".join(f"{key} {plain(item)}" for key, item in value.items())
    return json.dumps(value)


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis, safe to print."""
    return clip_line(neutralize(" ".join(text.split())), limit)


def _control_pictures() -> dict[int, str]:
    """C0 controls and DEL as their Unicode control pictures (ESC -> ␛); C1 controls as `\\x9b`.

    Newline and tab are layout, not commands, and stay. C1 controls are
    included because some terminals obey the 8-bit forms (0x9b is a CSI).
    """
    table = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
    table[0x7F] = "␡"
    table.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
    return table


_PICTURES = _control_pictures()


def neutralize(text: str) -> str:
    """`text` with every terminal control character shown, not obeyed.

    A model's reply, a file a tool printed or a server's error message can
    carry escape sequences that set the window title (OSC 0), write the
    clipboard (OSC 52), clear the screen, or ask the terminal a question whose
    answer is typed into our input (DSR). Written raw, the terminal would act
    on them; here they become visible characters (`␛]52;c;...`). A CR before a
    newline is dropped (it only ends a Windows line); a lone CR, which would
    let later text overwrite a line, is shown. The transcript keeps the raw
    text: this is for display only.
    """
    return text.replace("\r\n", "\n").translate(_PICTURES)


def format_cost(usage: UsageTotals) -> str:
    """Dollars from litellm's price table; "unknown" when no request had a price."""
    if usage.requests and usage.local == usage.requests:
        return "free (the local model)"
    if usage.requests and usage.unpriced == usage.requests:
        return "unknown"
    if 0 < usage.cost < 0.00005:  # would print as $0.0000, which reads as free
        amount = "under $0.0001"
    else:
        amount = f"${usage.cost:.4f}" if usage.cost < 1 else f"${usage.cost:.2f}"
    if usage.unpriced:
        plural = "s" if usage.unpriced > 1 else ""
        return f"{amount} + {usage.unpriced} unpriced request{plural}"
    return amount


def _cached_share(usage: UsageTotals) -> str:
    return f"{round(100 * usage.cache_hit_rate)}% of {format_tokens(usage.prompt_tokens)} input tokens read from cache"


def compaction_cost(usage: UsageTotals) -> str:
    """What a compaction's own requests cost, e.g. "cost $0.0130 · 92% of 18k input tokens read from cache"."""
    if not usage.requests:
        return "no model request"
    return f"cost {format_cost(usage)} · {_cached_share(usage)}"


def session_usage(usage: UsageTotals) -> str:
    """One line for a whole session: requests, cache hits, output and cost. Counts under 1k are exact:
    a one-word reply is "3 output tokens", not "0.0k"."""
    plural = "s" if usage.requests != 1 else ""
    output = usage.completion_tokens
    return (
        f"{usage.requests} request{plural} · {_cached_share(usage)} "
        f"({format_tokens(usage.cache_write_tokens)} written to it) · "
        f"{format_tokens(output)} output token{'' if output == 1 else 's'} · cost {format_cost(usage)}"
    )


def bar(ratio: float, width: int = 10) -> str:
    """A small filled/empty bar; `ratio` is clamped to [0, 1]."""
    filled = round(max(0.0, min(1.0, ratio)) * width)
    return "▰" * filled + "▱" * (width - filled)


def short_path(path: Path | str, home: Path | None = None) -> str:
    """`~/src/project` rather than the full home path."""
    text = str(path)
    home_text = str(home if home is not None else Path.home())
    if home_text not in ("", "/") and (text == home_text or text.startswith(home_text + "/")):
        return "~" + text[len(home_text) :]
    return text
