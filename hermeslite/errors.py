"""Errors that end a command with one sentence for the user and no traceback."""


class UserFacingError(Exception):
    """`str()` is the whole message: what went wrong and what to do about it."""
