"""The environment a tool process gets: the user's, minus the credentials of the model provider.

A model that runs `env` would otherwise read every API key hermeslite was
started with, store it in the session and send it back to the provider. The
names below cover the providers litellm talks to and the usual cloud secrets;
`model.api_key_env` names one more, and `tools.pass_env` lets listed names
through on purpose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

SECRET_NAME = re.compile(
    r"(_API_?KEY|_API_TOKEN|_ACCESS_TOKEN|_AUTH_TOKEN|_SESSION_TOKEN|_SECRET_KEY)$|SECRET|^HF_TOKEN$"
    r"|^HUGGING_FACE_HUB_TOKEN$",
    re.IGNORECASE,
)
# Pagers and prompts that would wait for a keyboard the command does not have.
QUIET = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


def is_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def tool_environment(
    base: Mapping[str, str], *, hidden: Iterable[str] = (), passed: Iterable[str] = ()
) -> dict[str, str]:
    """`base` without secret-looking names and `hidden`, except those in `passed`; plus QUIET."""
    hidden_names, passed_names = set(hidden), set(passed)
    env = {
        name: value
        for name, value in base.items()
        if name in passed_names or not (is_secret(name) or name in hidden_names)
    }
    return {**env, **QUIET}
