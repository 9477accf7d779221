"""The text of a `-p` prompt: its argument, what is piped into stdin, and bytes that are not UTF-8.

`git diff | hermeslite -p "review this"` must send the diff too: a prompt that
silently drops what the user piped in answers a question nobody asked. So a
pipe or a file on stdin is appended to the prompt after a blank line, and
`-p -` takes the whole prompt from stdin (the way to send one larger than the
system lets a command-line argument be). A terminal or /dev/null on stdin is
not read, so `hermeslite -p TEXT` typed at a prompt never waits for input.

Text that is not UTF-8 (a Latin-1 file, a stray byte in an argument) cannot
be sent as it is: it would reach the provider as lone surrogates, which JSON
cannot carry. It is decoded with U+FFFD in place of each bad byte, and a
warning names where the first one was.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from typing import TextIO

from hermeslite.errors import UsageError

FROM_STDIN = "-"  # `-p -`: the prompt is what stdin holds


@dataclass(frozen=True)
class Prompt:
    text: str
    warnings: list[str] = field(default_factory=list)  # one line each, for stderr


def decode(data: bytes, what: str) -> tuple[str, str | None]:
    """`data` as text, and a warning naming the first byte that is not UTF-8 (None when all are)."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        warning = (
            f"{what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "each bad byte is sent as U+FFFD"
        )
        return data.decode("utf-8", errors="replace"), warning


def stdin_is_piped(stream: TextIO) -> bool:
    """True for a pipe or a regular file (`cmd | hermeslite`, `< file`); False for a terminal, /dev/null,
    or a stream with no descriptor (one a caller of `main()` put in place of stdin)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def read_prompt(argument: str, stdin: TextIO, *, piped: bool) -> Prompt:
    """The prompt `-p argument` sends, with stdin appended when `piped` (or all of it for `-p -`).

    Raises UsageError when there is nothing to send: an empty or blank prompt
    would be refused by some providers and answered with a guess by others.
    """
    from_stdin = argument == FROM_STDIN
    # argv arrives decoded with surrogateescape: fsencode gives back the bytes that were typed.
    text, warning = ("", None) if from_stdin else decode(os.fsencode(argument), "the -p prompt")
    warnings = [warning] if warning else []
    if from_stdin or piped:
        piped_text, piped_warning = decode(stdin.buffer.read(), "stdin")
        warnings += [piped_warning] if piped_warning else []
        if piped_text.strip():
            text = f"{text.rstrip()}\n\n{piped_text}" if text.strip() else piped_text
    if not text.strip():
        if from_stdin:
            raise UsageError("-p - reads the prompt from stdin, and stdin was empty")
        raise UsageError(
            "-p needs a prompt: the text given is empty and " + ("so is stdin" if piped else "nothing was piped in")
        )
    return Prompt(text, warnings)
