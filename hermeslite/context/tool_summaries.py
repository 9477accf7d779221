"""One-line descriptions of tool results, used when an old output is pruned.

A pruned output should still tell the model what happened (which command,
whether it failed, which file and how big) so it rarely needs to ask for the
original back. Each line ends with the archive id `recall` takes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .clip import clip_line
from .result import plural
from .tool_roles import DEFAULT_TOOL_ROLES, ToolRole, ToolRoles

MATCH_COUNT = re.compile(r"(\d+)\s+(?:matches|match|results|hits)\b", re.IGNORECASE)
# The same search done fast: find the word with str.find in lower-cased text, then the number before it.
COUNT_WORDS = ("match", "results", "hits")
COUNT_WORD = re.compile(r"match(?:es)?\b|results\b|hits\b")
NUMBER_BEFORE = re.compile(r"(\d+)\s+\Z")


def reported_count(output: str) -> int | None:
    """The first "<n> matches|match|results|hits", as MATCH_COUNT.search finds it (number within 80 chars)."""
    low = output.lower()
    if len(low) != len(output):  # a few characters change length when lower-cased
        found = MATCH_COUNT.search(output)
        return int(found.group(1)) if found else None
    next_at = {word: low.find(word) for word in COUNT_WORDS}
    while True:
        word, at = min(((w, i) for w, i in next_at.items() if i >= 0), key=lambda x: x[1], default=(None, -1))
        if word is None:
            return None
        if COUNT_WORD.match(low, at):
            found = NUMBER_BEFORE.search(output, max(0, at - 80), at)
            if found:
                return int(found.group(1))
        next_at[word] = low.find(word, at + 1)


def _lines(output: str) -> int:
    return output.count("\n") + (1 if output and not output.endswith("\n") else 0)


def _command(args: dict[str, Any], output: str, code: int | None) -> str:
    shown = "?" if code is None else str(code)
    return f"ran `{clip_line(args.get('command', ''), 80)}` -> exit {shown}, {plural(_lines(output), 'line')} output"


def _read_file(args: dict[str, Any], output: str) -> str:
    where = f" from line {args['offset']}" if args.get("offset") else ""
    return f"read {clip_line(args.get('path', '?'), 120)}{where} ({len(output)} chars)"


def _write_file(args: dict[str, Any], output: str) -> str:
    content = str(args.get("content", ""))
    return f"wrote {clip_line(args.get('path', '?'), 120)} ({plural(_lines(content), 'line')})"


def _patch(args: dict[str, Any], output: str) -> str:
    return f"patched {clip_line(args.get('path', '?'), 120)} ({clip_line(output, 60)})"


def _search(args: dict[str, Any], output: str) -> str:
    query = args.get("pattern") or args.get("query") or ""
    count = reported_count(output)
    if count is None:
        count = sum(1 for line in output.splitlines() if line.strip())
    where = f" in {clip_line(args['path'], 80)}" if args.get("path") else ""
    return f"searched for '{clip_line(query, 60)}'{where} -> {count} matches"


def _recall(args: dict[str, Any], output: str) -> str:
    if args.get("id") or not args.get("query"):
        return f"recalled {args.get('id', '?')} ({len(output)} chars)"
    count = reported_count(output)
    return f"searched the archive for '{clip_line(args['query'], 60)}' -> {count or 0} matches"


def _generic(args: dict[str, Any], output: str) -> str:
    shown = ", ".join(f"{k}={clip_line(v, 40)}" for k, v in list(args.items())[:3])
    return f"{shown} ({len(output)} chars result)".lstrip()


_SUMMARIZERS: dict[ToolRole | None, Callable[[dict[str, Any], str], str]] = {
    ToolRole.READS_FILES: _read_file,
    ToolRole.WRITES_FILES: _write_file,
    ToolRole.PATCHES_FILES: _patch,
    ToolRole.SEARCHES_FILES: _search,
    ToolRole.RECALLS: _recall,
}


def summarize_tool_result(
    name: str,
    args: dict[str, Any],
    output: str,
    *,
    exit_code: int | None = None,
    roles: ToolRoles = DEFAULT_TOOL_ROLES,
) -> str:
    """`[tool] what it did -> outcome`, worded by the tool's role; never raises, whatever the arguments hold."""
    role = roles.of(name)
    try:
        if role is ToolRole.RUNS_COMMANDS:
            body = _command(args, output, exit_code)
        else:
            body = _SUMMARIZERS.get(role, _generic)(args, output)
    except Exception:  # arguments come from a model: any shape is possible
        body = f"({len(output)} chars result)"
    return f"[{name or 'tool'}] {body}"
