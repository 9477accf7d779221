"""Credentials known by the line format of the file that holds them: `.pgpass`.

A PostgreSQL password file has one `host:port:database:user:password` line per
server, with no name beside the password: only the shape says what it is.
Five colon-separated fields with a port number second are that shape, and
little else is (times, MAC and IPv6 addresses, `file:line:col:` locations have
no port there, or too many fields, a column number where the database stands, or a digit where the
user name starts).
The line may stand alone (`cat ~/.pgpass`, a read_file line), inside quotes
(`echo '...' > ~/.pgpass`), or after grep's `.pgpass:N:` prefix.

The pattern opens on the colon before the port, a literal `re` skips ahead to;
the host is read backwards from there, so the scan stays linear.
"""

from __future__ import annotations

import re

from .secret_fields import KeySpans, Span, is_placeholder

_FIELD = r"(?:[^\s:\\\"'`]|\\.)+"  # a field; `\:` and `\\` escape a colon and a backslash
_PGPASS = re.compile(
    r":(?P<port>\d{1,5}|\*):(?P<database>" + _FIELD + r"):(?P<user>" + _FIELD + r"):(?P<secret>" + _FIELD + r")"
    r"(?=[\s\"'`]|$)"
)
_HOST_BACKWARDS = re.compile(r"[A-Za-z0-9_.\-/\[\]*]{1,255}")
_USER_START = re.compile(r"[A-Za-z_*]")
_GREP_PREFIX = re.compile(r"\.pgpass:(?:\d+:)?$")  # `grep -n x ~/.pgpass` prints `~/.pgpass:3:` first
_BEFORE_LINE = " \t\r\n\"'`=>("  # what may stand before a pgpass line that is not at the text's start


def _host(text: str, colon: int) -> str | None:
    """The host field that ends at `colon`, when it starts a pgpass line; else None."""
    found = _HOST_BACKWARDS.match(text[max(0, colon - 255) : colon][::-1])
    if found is None:
        return None
    start = colon - found.end()
    if start > 0 and text[start - 1] not in _BEFORE_LINE and not _GREP_PREFIX.search(text[max(0, start - 40) : start]):
        return None
    return found.group()[::-1]


def _pgpass(match: re.Match[str], keys: KeySpans) -> list[Span]:
    host = _host(match.string, match.start())
    if host is None or not (host == "*" or any(c.isalpha() for c in host) or "." in host):
        return []
    if "/" in host and not host.startswith("/"):
        return []  # a relative path: `src/main.c:12:5:...` is a compiler's location, not a server
    database, user = match.group("database"), match.group("user")
    if database.isdigit() or not _USER_START.match(user) or is_placeholder(match.group("secret")):
        return []  # a digit where the database stands is a column number
    return [match.span("secret")]


FILE_RULES = ((_PGPASS, _pgpass),)
