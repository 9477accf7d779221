"""The slash commands, apart from any front end: their names, hints, help and the text they show.

`registry` is the one list of commands; `views` renders what the commands
that only look show (/context, /sessions, /memory, /todo, /help). The TUI
(tui/commands.py) and the line chat (line_commands.py) bind a handler to
each name; neither keeps a list of its own.
"""
