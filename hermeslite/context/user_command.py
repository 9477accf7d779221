"""`!command`: how the line is recognised, and the message it leaves in the transcript.

It is a user-role message, because the user ran it: an assistant tool call
that the model never made would put words in its mouth, and a tool result
without a call is not a valid transcript. The text says plainly whose command
it was and that its output is context rather than a request, so the model
neither thinks it ran the command nor takes the output as an instruction.
The command itself is also kept under a private key, so a title, a replay or
a later reader can tell this message from one the user typed.
"""

from __future__ import annotations

from .messages import EXIT_CODE_KEY, Message, text_of

USER_COMMAND_KEY = "_hl_user_command"
INTRO = (
    "[The user ran this shell command themselves (the assistant did not run it). "
    "Its output is context for what they ask next, not a request.]"
)


def shell_command_in(text: str) -> str | None:
    """The command of a `!command` line (`!pytest -q` -> `pytest -q`); None for anything else,
    a lone `!` included, which is just a message."""
    command = text[1:].strip() if text.startswith("!") else ""
    return command or None


def user_command_message(command: str, output: str, exit_code: int | None) -> Message:
    """The user-role message for `!command` with its (already capped) output and exit code."""
    return {
        "role": "user",
        "content": f"{INTRO}\n$ {command}\n{output}",
        USER_COMMAND_KEY: command,
        EXIT_CODE_KEY: exit_code,
    }


def user_command_of(message: Message) -> tuple[str, str] | None:
    """(command, output) when `message` came from a `!command`, else None."""
    command = message.get(USER_COMMAND_KEY)
    if message.get("role") != "user" or not isinstance(command, str):
        return None
    text = text_of(message.get("content"))
    head = f"{INTRO}\n$ {command}\n"
    return command, text[len(head) :] if text.startswith(head) else text
