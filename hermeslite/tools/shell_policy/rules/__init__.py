"""Per-command rules, looked up by program name."""

from __future__ import annotations

import re

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.rules.code import CODE_RULES, python
from hermeslite.tools.shell_policy.rules.files import FILE_RULES
from hermeslite.tools.shell_policy.rules.git import GIT_RULES
from hermeslite.tools.shell_policy.rules.indirect import INDIRECT_RULES
from hermeslite.tools.shell_policy.rules.network import NETWORK_RULES
from hermeslite.tools.shell_policy.rules.packages import PACKAGE_RULES
from hermeslite.tools.shell_policy.rules.system import SYSTEM_RULES, disk


def _both(first: Rule, second: Rule) -> Rule:
    def rule(call: Call) -> None:
        first(call)
        second(call)

    return rule


# Network and package rules only add the hosts a command reaches; a program that also has a rule
# for what it writes or runs (rsync, scp, bun) gets both.
_JUDGED = {**FILE_RULES, **CODE_RULES, **INDIRECT_RULES, **GIT_RULES, **SYSTEM_RULES}
_HOSTS = {**NETWORK_RULES, **PACKAGE_RULES}
RULES: dict[str, Rule] = {
    **_JUDGED,
    **_HOSTS,
    **{name: _both(_JUDGED[name], _HOSTS[name]) for name in _JUDGED.keys() & _HOSTS.keys()},
}
VERSIONED_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
VERSIONED_PIP = re.compile(r"pip[0-9.]+")


def rule_for(name: str) -> Rule | None:
    """Families named by prefix: `mkfs.ext4`, `python3.12`."""
    if name.startswith("mkfs."):
        return disk
    if VERSIONED_PYTHON.fullmatch(name):
        return python
    if VERSIONED_PIP.fullmatch(name):
        return PACKAGE_RULES["pip"]
    return None
