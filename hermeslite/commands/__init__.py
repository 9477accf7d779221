"""The slash commands, apart from any front end: their names, hints, help and the text they show.

`registry` is the one list of commands; `views` renders what the commands
that only look show (/context, /sessions, /memory, /skills, /todo, /help).
The TUI (tui/commands.py) and the line chat (line_commands.py) bind a handler
to each built-in name; neither keeps a list of its own. `custom` adds the
user's command files to a front end's registry as prompt commands.
"""
