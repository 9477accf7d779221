"""Text carrying terminal escape sequences, as a model or a tool might send it, and how to spot what leaked."""

from __future__ import annotations

# A reply that, printed raw, would set the window title, put a command on the
# clipboard, clear the screen, ask the terminal for its cursor position (the
# answer lands on our input) and switch colour through the 8-bit CSI.
HOSTILE_REPLY = (
    "title\x1b]0;pwned\x07 clipboard\x1b]52;c;cm0gLXJmIH4=\x07 clear\x1b[2J\x1b[H query\x1b[6n c1\x9b31m end"
)
# A command whose text and output carry the same kind of sequences, and a file that does.
HOSTILE_COMMAND = "printf '\x1b]0;from-tool\x07 \x1b]52;c;aGk=\x07 \x1b[6n done\\n'"
HOSTILE_FILE = "notes\n\x1b]0;from-file\x07 \x1b]52;c;aGk=\x07 \x1b[6n done\n"


def is_control(char: str) -> bool:
    """A C0 or C1 control character other than newline and tab: what a terminal may act on."""
    code = ord(char)
    return (code < 0x20 and char not in "\n\t") or 0x7F <= code < 0xA0
