"""The text the commands show: /context, /sessions, /memory, /todo, /model and the command list of /help.

Pure functions from agent state to text, so each view is testable, the TUI
shows it in a viewer and the line chat prints it, and both say the same.
/context is the one users steer by: it shows where the tokens go, each part
against the window, and where compaction fires.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hermeslite.agent.session_list import SessionRow
from hermeslite.display import bar, format_cost, format_tokens, short_path
from hermeslite.extensions.skills import Skills
from hermeslite.store.usage import UsageTotals

from .registry import COMMANDS, CommandSpec, available, elsewhere, missing
from .session_table import EMPTY, session_lines, when

if TYPE_CHECKING:
    from hermeslite.agent.rewind import TurnRow

BAR = 20
LABEL = 15  # the name column of /context's table; wider when a part's name needs it
SHELL_HELP = (
    "!command (e.g. !pytest -q) runs a shell command yourself, through the",
    "terminal tool: same approval rules, output cap and sandbox. The command",
    "and its output join the conversation for your next message; the model",
    "is not called. The embedded model (used when no model is configured)",
    "chats but does not call tools: !command is how to show it the output.",
)
WAITS_NOTE = "⏸ typed during a turn, these wait in the queue with messages; the others run at once."
PROMPTS_HEADING = "Custom commands (what they expand to is sent as your message)"
MAX_USAGE_WIDTH = 36
SKILL_FOLDERS = (
    "A skill is a folder holding a SKILL.md: in .hermeslite/skills or .agents/skills of the project, "
    "or in skills/ of the config directory or ~/.agents/skills. They are read when a session starts."
)


def threshold_bar(ratio: float, threshold_ratio: float, width: int = BAR) -> str:
    """A bar of the whole window with `│` where compaction fires."""
    cells = list(bar(ratio, width))
    mark = min(width - 1, max(0, round(threshold_ratio * width)))
    cells[mark] = "│"
    return "".join(cells)


def context_view(breakdown, usage: UsageTotals | None = None, mode: str | None = None) -> str:
    """Each part in tokens and % of the window, the next request against the threshold and how it
    was counted, the project instruction files, then the session's usage."""
    window, threshold = breakdown.context_length, breakdown.threshold
    pct = breakdown.percent_of_window
    lines = [
        f"Window {format_tokens(window)} tokens · compaction at {format_tokens(threshold)} ({pct(threshold):.0f}% of the window)"
    ]
    if breakdown.window_source:
        lines.append(f"Window: {breakdown.window_source}")
    if mode is not None:
        lines.append(f"Mode: {mode}")
    if breakdown.threshold_rule:
        lines.append(f"Why there: {breakdown.threshold_rule}")
    label = max([LABEL, *(len(part.name) + 1 for part in breakdown.parts)])
    lines += ["", f"  {'part':<{label}}{'tokens':>8}{'% window':>10}"]
    for part in breakdown.parts:
        lines.append(
            f"  {part.name:<{label}}{format_tokens(part.tokens):>8}{pct(part.tokens):>9.1f}%  "
            f"{bar(part.tokens / window if window else 0, BAR)}"
        )
    total = breakdown.total
    marked = threshold_bar(total / window if window else 0, threshold / window if window else 0)
    lines += [
        "  " + "─" * (label + 40),
        f"  {'next request':<{label}}{format_tokens(total):>8}{pct(total):>9.1f}%  {marked}",
        f"  {'threshold':<{label}}{format_tokens(threshold):>8}{pct(threshold):>9.1f}%  │ "
        + (f"{format_tokens(threshold - total)} tokens left" if total < threshold else "compaction due now"),
        "",
        *counted_lines(breakdown.request),
    ]
    if breakdown.instructions_stale:
        lines += [
            "",
            "Project instructions changed on disk since the system prompt was built;",
            "it keeps the earlier ones until the next compaction.",
        ]
    if breakdown.instruction_files:
        where = "on disk" if breakdown.instructions_stale else "in the system prompt"
        lines += ["", f"Project instructions ({where}):", *(f"  {name}" for name in breakdown.instruction_files)]
    if usage is not None and usage.requests:
        lines += ["", *usage_lines(usage)]
    lines += ["", "/compress [focus] compacts now, keeping [focus] in detail."]
    return "\n".join(lines)


def counted_lines(request) -> list[str]:
    """Which part of the next request the provider counted and which is estimated, and the
    calibration the estimates (the parts above too) are scaled by."""
    if request.reported is None:
        why = "no provider report yet" if not request.calibration.samples else "rewritten since last report"
        lines = [f"  {'counted':<15}{format_tokens(request.total):>8}  all estimated ({why})"]
    else:
        sign = "+" if request.estimated >= 0 else "−"
        lines = [
            f"  {'counted':<15}{format_tokens(request.reported):>8}  reported by the provider (last request)",
            f"  {'':<15}{sign + format_tokens(abs(request.estimated)):>8}  estimated for what changed since",
        ]
    return [*lines, f"  {'estimates':<15}{'':>8}  {request.calibration.describe()}"]


def usage_lines(usage: UsageTotals) -> list[str]:
    """The session's model requests: input split by how the provider billed it, output, cost."""
    plural = "s" if usage.requests != 1 else ""
    return [
        f"Session usage · {usage.requests} model request{plural} · cost {format_cost(usage)} (litellm's prices)",
        f"  {'input':<15}{format_tokens(usage.prompt_tokens):>8}  read from cache {format_tokens(usage.cache_read_tokens)} "
        f"({round(100 * usage.cache_hit_rate)}%)",
        f"  {'':<15}{'':>8}  written to cache {format_tokens(usage.cache_write_tokens)}, uncached {format_tokens(usage.uncached_tokens)}",
        f"  {'output':<15}{format_tokens(usage.completion_tokens):>8}",
    ]


def sessions_view(rows: Sequence[SessionRow]) -> str:
    """/sessions: the saved sessions as `hermeslite sessions` lists them, ● on the open one."""
    if not rows:
        return EMPTY
    return "\n".join(
        [*session_lines(rows), "", "/resume <id prefix> opens one (in the app, /resume alone opens a picker)."]
    )


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


def model_view(model: str, window: int, threshold: int) -> str:
    """/model without a name: what the session talks to and where it compacts (the list under it
    says how to switch)."""
    return f"Model {model} · window {window:,} tokens · compaction at {threshold:,}."


def switched_view(model: str, window: int, threshold: int, compacts_first: bool) -> str:
    """/model <name>: the new window and threshold, and whether the next turn compacts first."""
    note = f"Switched to {model}: window {window:,} tokens, compaction at {threshold:,}."
    return note + (" The next turn compacts first (preflight)." if compacts_first else "")


def session_view(session_id: str, resumed: bool, recorded_model: str | None, model: str) -> str:
    """The line after /new, /resume or /handoff switched sessions; says when the model changed."""
    note = f"{'Resumed' if resumed else 'New'} session {session_id}."
    if recorded_model and recorded_model != model:
        note += f" It was recorded with {recorded_model} and goes on with {model} (/model {recorded_model} switches)."
    return note


def command_lines(
    front_end: str,
    *,
    mark_waits: bool,
    commands: tuple[CommandSpec, ...] = COMMANDS,
    prompts: Sequence[CommandSpec] = (),
) -> list[str]:
    """The commands `front_end` has, one per line with their hints, then the custom (prompt)
    commands, then those it lacks and why.

    `mark_waits` puts ⏸ before the commands that wait for a running turn (the app runs
    turns in the background; the line chat reads the next line only after one ends).
    """
    here = available(front_end, commands)
    width = min(max(len(c.usage) for c in (*commands, *prompts)), MAX_USAGE_WIDTH) + 2

    def row(c: CommandSpec) -> list[str]:
        mark = "⏸" if mark_waits and c.waits else " "
        if len(c.usage) > width - 2:  # too long for its column: the meaning starts under it, a line down
            return [f"{mark} {c.usage}", f"  {'':<{width}}{c.help}"]
        return [f"{mark} {c.usage:<{width}}{c.help}"]

    lines = [line for c in here for line in row(c)]
    if prompts:
        lines += ["", PROMPTS_HEADING, *(line for c in prompts for line in row(c))]
    if mark_waits:
        lines += ["", WAITS_NOTE]
    if absent := missing(front_end, commands):
        lines += ["", "Not here"] + [f"  {c.slash:<{width}}{elsewhere(c)}" for c in absent]
    return lines


def skills_view(skills: Skills) -> str:
    """/skills: each skill the model can load, where it is and what it is for; then those that
    could not be loaded, and why."""
    lines = []
    if skills.skills:
        lines.append("The model sees each skill's name and description, and loads one with the skill tool.")
        for skill in skills.skills:
            lines += ["", f"  {skill.name} ({skill.scope}) · {skill.location}", f"    {skill.description}"]
    else:
        lines.append("No skills.")
    if skills.problems:
        lines += ["", "Problems found when the session started"] + [f"  {problem}" for problem in skills.problems]
    return "\n".join([*lines, "", SKILL_FOLDERS])


def turn_files(files: Sequence[str], undone: bool) -> str:
    """What a turn did to the files, in a few words: `2 files`, `1 file, undone`, or nothing."""
    if not files:
        return ""
    count = f"{len(files)} file" + ("" if len(files) == 1 else "s")
    return f"{count}, undone" if undone else count


def first_line(text: str, width: int = 70) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def turns_view(rows: Sequence[TurnRow]) -> str:
    """The line chat's /rewind: the session's turns, oldest first, and how to rewind to one."""
    if not rows:
        return "No turns yet in this session: nothing to rewind."
    lines = ["Turns of this session, oldest first:"]
    for row in rows:
        files = turn_files(row.files, row.undone)
        lines.append(f"  {row.number:>3}  {when(row.at)}  {files or '-':<16}  {first_line(row.text)}")
    lines.append("/rewind N previews going back to just before turn N; /rewind N both|code|chat does it.")
    return "\n".join(lines)
