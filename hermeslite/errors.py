"""Errors that end a command with one sentence for the user and no traceback."""

import signal

# The shell's status for a program that SIGINT (Ctrl-C) ended: an interrupted run, not a failed one.
EXIT_INTERRUPTED = 128 + signal.SIGINT


class UserFacingError(Exception):
    """`str()` is the whole message: what went wrong and what to do about it."""


class Unexpected(Exception):
    """An error nobody planned for (a bug, or a fault no check foresaw) that ended a command while a
    session was open, with what the user needs besides it: where that session stands (`where`).
    The command line names both in one line; the traceback is for --verbose."""

    def __init__(self, error: Exception, where: str) -> None:
        super().__init__(f"{error}; {where}")
        self.error = error
        self.where = where


class UsageError(UserFacingError):
    """The command line asks for something that cannot work as given (an empty prompt): exit 2, as
    for a usage error argparse finds, so a script can tell it from a failed turn (exit 1)."""
