"""The environment a tool process gets: the user's, minus every variable that looks like a credential.

A model that runs `env`, or a command that puts `$GITHUB_TOKEN` in a URL,
would otherwise read every secret hermeslite was started with, store it in
the session and send it to the provider or to a server. A name is taken for a
secret when it contains PASSWORD, PASSWD, SECRET, PASSPHRASE or
CONNECTION_STRING, when one of its `_`-separated words is TOKEN, PASS, APIKEY,
CREDENTIALS, WEBHOOK or DSN, when its last word is KEY (or KEY followed by
ID) or, after another word, PWD, or when it is DATABASE_URL; a value is, when it is a URL carrying a
password (`postgres://user:pw@host/db`). `model.api_key_env` names one more,
and `tools.env_passthrough` lets listed names through on purpose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

SECRET_PARTS = ("PASSWORD", "PASSWD", "SECRET", "PASSPHRASE", "CONNECTION_STRING")
SECRET_WORDS = frozenset({"TOKEN", "PASS", "APIKEY", "CREDENTIALS", "WEBHOOK", "DSN"})
SECRET_NAMES = frozenset({"DATABASE_URL", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"})
# scheme://user:password@host — a password in the userinfo of a URL.
URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@", re.IGNORECASE)
# Pagers and prompts that would wait for a keyboard the command does not have.
QUIET = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


def is_secret(name: str, value: str = "") -> bool:
    upper = name.upper()
    words = upper.split("_")
    if upper in SECRET_NAMES or any(part in upper for part in SECRET_PARTS):
        return True
    if SECRET_WORDS.intersection(words) or words[-1] == "KEY" or words[-2:] == ["KEY", "ID"]:
        return True
    if len(words) > 1 and words[-1] == "PWD":  # MYSQL_PWD; PWD itself is the working directory
        return True
    return bool(URL_WITH_PASSWORD.search(value))


def tool_environment(
    base: Mapping[str, str], *, hidden: Iterable[str] = (), passed: Iterable[str] = ()
) -> dict[str, str]:
    """`base` without secret-looking variables and `hidden`, except those in `passed`; plus QUIET."""
    hidden_names, passed_names = set(hidden), set(passed)
    env = {
        name: value
        for name, value in base.items()
        if name in passed_names or not (is_secret(name, value) or name in hidden_names)
    }
    return {**env, **QUIET}
