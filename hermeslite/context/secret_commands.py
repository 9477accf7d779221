"""Credentials on command lines: `curl -u user:pass`, `--password X`, `mysql -pX`, `sshpass -p X`,
`echo X | docker login --password-stdin`.

A long option named like a credential (`--password X`, `--api-key X`) says so
anywhere. A short one says it only inside the right command: `-u` is a user
and password for curl but a user and group for `docker run -u 1000:1000`, and
`-p` is a password for mysql but a port or a flag elsewhere. So those rules
name their program, and `_starts_command` checks that the name stands where a
command starts rather than inside a word.
"""

from __future__ import annotations

import re

from .secret_fields import SYMBOL, KeySpans, Span, is_literal, is_placeholder, looks_random, trim_bare
from .secret_names import Strength, strength

# curl -u user:password, -uuser:password, --user user:password, --user 'user:pass word'
_CURL_USER = re.compile(
    r"-(?:(?<![\w-]-)u[ \t=]*|(?<![\w-]-)-user[ \t=]+)(?P<q>[\"'])?(?P<user>[^\s:\"'$]*):"
    r"(?P<password>(?(q)[^\"'\r\n]*|[^\s\"']*))"
)
_CURL = re.compile(r"curl\b")
# What may stand before a program's name: a command starts after a separator, a quote or a path,
# not glued to a word (nor to MARK, so a second redaction reads the text as the first did).
_COMMAND_START = " \t\r\n|;&(\"'`/"
_CURL_LOOKBACK = 300  # how far back, within the same command, `curl` is looked for
# Passwords given to a short option: mysql -pSECRET (attached; `-p db` prompts), sshpass -p SECRET,
# docker login -p SECRET, openssl -passin pass:SECRET, aws configure set aws_secret_access_key SECRET.
_OPTION_VALUE = r"(?P<secret>\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\s\"'-][^\s\"']*)"
# The words that follow in the same command, counted rather than measured, so masking a key
# among them does not bring a later option into reach on a second redaction.
_COMMAND_ARGS = r"\b(?:[ \t]+[^\s|;&]+){0,16}?[ \t]+"
_PROGRAM_OPTIONS = (
    re.compile(
        r"(?:mysql(?:dump|admin|import|show|check)?|mariadb(?:-dump|-admin)?)" + _COMMAND_ARGS + "-p" + _OPTION_VALUE
    ),
    re.compile(r"sshpass" + _COMMAND_ARGS + r"-p[ \t]*" + _OPTION_VALUE),
    re.compile(r"(?:docker|podman)[ \t]+login" + _COMMAND_ARGS + r"-p[ \t]+" + _OPTION_VALUE),
)
# A password piped to a login that reads it from stdin: `echo X | docker login -u me --password-stdin`
# (podman, helm registry, oras and skopeo take the same option; `gh auth login --with-token` a token),
# or given as a here-string after it (`docker login --password-stdin <<< X`).
_PIPED_VALUE = r"(?P<secret>\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\s\"'|;&<>-][^\s\"'|;&<>]*)"
_STDIN_LOGIN = r"(?:--password-stdin|--with-token)"
_PIPED_PASSWORDS = tuple(
    re.compile(
        program
        + r"(?:[ \t]+-[neE]{1,3})*(?:[ \t]+[\"']?%s(?:\\n)?[\"']?)?[ \t]+"
        + _PIPED_VALUE
        + r"[ \t]*\|[^|;&\n]{0,200}?"
        + _STDIN_LOGIN
    )
    for program in ("echo", "printf")  # one pattern each, so each opens with a literal
)
_HERE_STRING_PASSWORD = re.compile(_STDIN_LOGIN + r"[^|;&\n]{0,100}?<<<[ \t]*" + _PIPED_VALUE)
_OPENSSL_PASS = re.compile(r"-pass(?:in|out)?[ \t]+[\"']?pass:(?P<secret>[^\s\"']+)")
_AWS_CONFIGURE = re.compile(r"aws[ \t]+configure[ \t]+set[ \t]+(?P<name>[\w.-]+)[ \t]+" + _OPTION_VALUE)
# --password hunter2, --api-key abc123 (the --name=value form is an assignment)
_FLAG = re.compile(
    r"--(?P<name>[A-Za-z][A-Za-z0-9_-]*)[ \t]+(?P<value>\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\s\"'\\-][^\s\"'\\]*)"
)


def _curl_user(match: re.Match[str], keys: KeySpans) -> list[Span]:
    """The password of `curl -u user:password`, or a token given as the user name (`-u "token:"`).

    Only in a curl command: elsewhere `-u`/`--user` take a user and group (`docker run -u 1000:1000`),
    a flag before a module (`python -u app.py:main`) or nothing at all (`sort -u a:b`)."""
    text, start = match.string, match.start()
    command = re.split(r"[|;&\n]", text[max(0, start - _CURL_LOOKBACK) : start])[-1]
    if not any(_starts_command(command, found.start()) for found in _CURL.finditer(command)):
        return []
    password, user = match.group("password"), match.group("user")
    if password:
        if match.group("q") is None:
            password = trim_bare(match.string, password, match.start())
        return [] if is_placeholder(password) else [(match.start("password"), match.start("password") + len(password))]
    return [match.span("user")] if len(user) >= 8 and any(c.isdigit() for c in user) else []


def _flag(match: re.Match[str], keys: KeySpans) -> list[Span]:
    name, value = match.group("name"), match.group("value")
    power = strength(name)
    if power is Strength.NONE:
        return []
    begin, end = match.span("value")
    if value[0] in "\"'":
        begin, end, value = begin + 1, end - 1, value[1:-1]
    else:
        value = trim_bare(match.string, value, match.start())
        end = begin + len(value)
    if not is_literal(value):
        return []
    if power is Strength.KEYLIKE and not looks_random(value):
        return []
    return [(begin, end)] if power is Strength.STRONG or SYMBOL.search(value) else []


def _option_value(match: re.Match[str], keys: KeySpans) -> list[Span]:
    """The value of a password option, without its quotes; a placeholder (`-p$PASS`) is left alone."""
    begin, end = match.span("secret")
    if match.group("secret")[0] in "\"'":
        begin, end = begin + 1, end - 1
    return [] if begin >= end or is_placeholder(match.string[begin:end]) else [(begin, end)]


def _starts_command(text: str, start: int) -> bool:
    return start == 0 or text[start - 1] in _COMMAND_START


def _program_option(match: re.Match[str], keys: KeySpans) -> list[Span]:
    """`_option_value` where the pattern's program name starts a command (`mysql`, not `xmysql`)."""
    return _option_value(match, keys) if _starts_command(match.string, match.start()) else []


def _aws_configure(match: re.Match[str], keys: KeySpans) -> list[Span]:
    """`aws configure set aws_secret_access_key VALUE` (also `default.aws_session_token`)."""
    name = match.group("name").rsplit(".", 1)[-1]
    return _program_option(match, keys) if strength(name) >= Strength.WEAK else []


COMMAND_RULES = (
    (_CURL_USER, _curl_user),
    *((pattern, _program_option) for pattern in _PROGRAM_OPTIONS),
    *((pattern, _program_option) for pattern in _PIPED_PASSWORDS),
    (_HERE_STRING_PASSWORD, _option_value),
    (_OPENSSL_PASS, _option_value),
    (_AWS_CONFIGURE, _aws_configure),
    (_FLAG, _flag),
)
