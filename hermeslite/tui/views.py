"""The app's /help: the commands the app has (from the registry), `!command`, then its keys.

The other views (/context, /sessions, ...) are shared with the line chat and
live in hermeslite/commands/views.py; only the keys are the app's own.
"""

from __future__ import annotations

from hermeslite.commands.registry import TUI, CommandRegistry
from hermeslite.commands.views import SHELL_HELP, command_lines

KEYS = (
    ("Enter", "send (during a turn: queue it, sent when the turn ends)"),
    ("Shift+Enter / Ctrl+J", "new line"),
    ("Up / Down", "history (first / last line)"),
    ("Up on an empty input", "take the last queued message back to edit it"),
    ("Tab", "complete a /command or an @file"),
    ("Esc", "back to the input; there, cancel the running turn"),
    ("PageUp / PageDown", "scroll the conversation"),
    ("Ctrl+End", "jump to the newest message"),
    ("Ctrl+O", "expand or collapse the newest tool panel or compaction card"),
    ("Ctrl+T", "show or hide the todo pane"),
    ("Shift+Tab", "next mode: default, accept-edits, plan (read-only)"),
    ("Ctrl+P", "command palette"),
    ("Ctrl+C", "stop the running turn; twice: quit (the session is saved)"),
)


def help_view(registry: CommandRegistry | None = None) -> str:
    """Commands (⏸ marks those that wait for a running turn), the custom ones, `!command`, then the keys."""
    prompts = [c.spec for c in registry.prompt_commands()] if registry else []
    lines = ["Commands", *command_lines(TUI, mark_waits=True, prompts=prompts)]
    lines += ["", "Shell", *(f"  {line}" for line in SHELL_HELP)]
    lines += ["", "Keys"] + [f"  {key:<22}{what}" for key, what in KEYS]
    return "\n".join(lines)
