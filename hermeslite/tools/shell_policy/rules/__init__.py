"""Per-command rules, looked up by program name."""

from __future__ import annotations

import re

from hermeslite.tools.shell_policy.call import Rule
from hermeslite.tools.shell_policy.rules.code import CODE_RULES, python
from hermeslite.tools.shell_policy.rules.files import FILE_RULES
from hermeslite.tools.shell_policy.rules.git import GIT_RULES
from hermeslite.tools.shell_policy.rules.indirect import INDIRECT_RULES
from hermeslite.tools.shell_policy.rules.network import NETWORK_RULES
from hermeslite.tools.shell_policy.rules.system import SYSTEM_RULES, disk

RULES: dict[str, Rule] = {**FILE_RULES, **CODE_RULES, **INDIRECT_RULES, **NETWORK_RULES, **GIT_RULES, **SYSTEM_RULES}
VERSIONED_PYTHON = re.compile(r"(python|pypy)[0-9.]*")


def rule_for(name: str) -> Rule | None:
    """Families named by prefix: `mkfs.ext4`, `python3.12`."""
    if name.startswith("mkfs."):
        return disk
    if VERSIONED_PYTHON.fullmatch(name):
        return python
    return None
