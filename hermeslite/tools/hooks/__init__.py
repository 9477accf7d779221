"""Hooks: the user's own commands, run at points of a session with a JSON description of the event.

`settings` is the `hooks:` block, `matcher` which tools a group applies to,
`process` runs one hook command (bounded in time and output, in its own
process group), and `reply` reads what it answered, as Claude Code does. The
agent decides what each answer does (agent/hooks.py).
"""
