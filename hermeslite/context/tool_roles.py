"""What each tool does, as far as the engine cares: the one table of tool knowledge it is handed.

The engine describes pruned outputs and extracts anchors by what a tool did
(ran a command, read or wrote a file), and it must not hard-code tool names
to know that: the agent builds this table from the roles its registered
tools declare. `DEFAULT_TOOL_ROLES` names hermeslite's own tools, for tests
and for callers that run the engine without a registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum


class ToolRole(Enum):
    RUNS_COMMANDS = "runs commands"  # output ends with an exit code; its error lines go with the command
    READS_FILES = "reads files"  # shows file contents: an "error" in it is code, not a failure
    WRITES_FILES = "writes files"
    PATCHES_FILES = "patches files"
    SEARCHES_FILES = "searches files"  # shows file contents too
    RECALLS = "recalls"  # brings back archived originals


@dataclass(frozen=True)
class ToolRoles:
    """Tool name -> its role; a tool not in the table is described generically."""

    by_name: Mapping[str, ToolRole] = field(default_factory=dict)

    def of(self, name: str) -> ToolRole | None:
        return self.by_name.get(name)


DEFAULT_TOOL_ROLES = ToolRoles(
    {
        "terminal": ToolRole.RUNS_COMMANDS,
        "read_file": ToolRole.READS_FILES,
        "write_file": ToolRole.WRITES_FILES,
        "patch": ToolRole.PATCHES_FILES,
        "search_files": ToolRole.SEARCHES_FILES,
        "recall": ToolRole.RECALLS,
    }
)
