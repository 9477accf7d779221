"""The names the model calls MCP tools by: `mcp__<server>__<tool>`.

Providers accept function names of at most 64 letters, digits, `_` and `-`.
A server's own tool name may hold other characters (`get.issue`) or be long,
so it is made to fit: other characters become `_`, and a name past the limit
keeps its start and gains a short hash of the whole, so two long names that
share a start stay apart. The server name is checked when the config is read.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
SEPARATOR = "__"
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """The name the model sees for `server`'s tool `tool`."""
    name = f"{PREFIX}{server}{SEPARATOR}{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(tool.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()[:8]
    return f"{name[: MAX_NAME - len(digest) - 1]}_{digest}"


def prompt_command(server: str, prompt: str) -> str:
    """The slash command (without the slash) that runs `server`'s prompt `prompt`."""
    return tool_name(server, prompt)
