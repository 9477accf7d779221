"""Errors that end a command with one sentence for the user and no traceback."""


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
