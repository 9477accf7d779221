"""The `mcp_servers:` block: one typed entry per server, checked with errors that name the key.

    mcp_servers:
      github:
        command: npx
        args: [-y, "@modelcontextprotocol/server-github"]
        env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"}
      docs:
        url: https://example.com/mcp
        headers: {Authorization: "Bearer ${DOCS_TOKEN}"}

A server is a program spoken to over stdin/stdout (`command`) or a streamable
HTTP endpoint (`url`), never both. Values may name environment variables as
`${NAME}` (or `${NAME:-default}`), so a token stays in the environment rather
than in a file that may be committed; they are expanded only when the server
starts, and a missing one fails that server alone, naming the variable and
never a value. Nothing here imports the MCP SDK: loading the config costs no
start-up time.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from hermeslite.config_file import ConfigError, build_section, describe
from hermeslite.context.fieldspec import check_and_normalize, spec

SECTION = "mcp_servers"
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
VARIABLE_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass
class McpServerConfig:
    """One MCP server. `command` (stdio) or `url` (streamable HTTP) says how it is reached."""

    command: str | None = field(
        default=None,
        metadata=spec(
            "text_or_null",
            "stdio: the program to run; it gets PATH, HOME, USER, LOGNAME, SHELL, TERM and `env`, "
            "never your provider keys",
        ),
    )
    args: list[str] = field(default_factory=list, metadata=spec("strings", "stdio: the program's arguments"))
    env: dict[str, str] = field(
        default_factory=dict,
        metadata=spec("string_map", 'stdio: more environment variables; values may say "${NAME}"'),
    )
    cwd: str | None = field(
        default=None,
        metadata=spec("text_or_null", "stdio: the directory it runs in (~ allowed); null: the working directory"),
    )
    url: str | None = field(default=None, metadata=spec("url_or_null", "streamable HTTP: the endpoint"))
    headers: dict[str, str] = field(
        default_factory=dict,
        metadata=spec("string_map", 'streamable HTTP: headers sent with every request; values may say "${NAME}"'),
    )
    enabled: bool = field(default=True, metadata=spec("bool", "false keeps the entry without starting the server"))
    startup_timeout: float = field(
        default=30,
        metadata=spec("number", "seconds to start and list its tools before it counts as failed", lo=1, hi=600),
    )
    timeout: float = field(
        default=120, metadata=spec("number", "seconds a tool call may take before it fails", lo=1, hi=86_400)
    )
    tools: list[str] = field(
        default_factory=list,
        metadata=spec("names", "tool names or globs offered to the model; empty: all of them"),
    )
    exclude_tools: list[str] = field(
        default_factory=list, metadata=spec("names", "tool names or globs never offered, even when `tools` lists them")
    )
    read_only_tools: list[str] = field(
        default_factory=list,
        metadata=spec(
            "names", "tools (names or globs) that only read: their calls take no file checkpoint (the others do)"
        ),
    )
    approved_tools: list[str] = field(
        default_factory=list,
        metadata=spec(
            "names", "tools (names or globs) that run without asking; the others ask first (headless: refused)"
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    @property
    def target(self) -> str:
        """The command line or the URL, as configured (a `${NAME}` stays unexpanded)."""
        return self.url or shlex.join([self.command or "", *self.args])

    def offers(self, tool: str) -> bool:
        """Whether the model is offered the server's tool `tool` (its own name, not the prefixed one)."""
        return (not self.tools or matches(tool, self.tools)) and not matches(tool, self.exclude_tools)

    def approved(self, tool: str) -> bool:
        return matches(tool, self.approved_tools)

    def read_only(self, tool: str) -> bool:
        return matches(tool, self.read_only_tools)


def matches(name: str, patterns: list[str]) -> bool:
    """`name` equals one of `patterns` or matches it as a glob (`get_*`); case matters."""
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def parse_servers(raw: Any, path: Path, warnings: list[str]) -> dict[str, McpServerConfig]:
    """The `mcp_servers:` mapping of a config file, every entry checked; raises ConfigError listing
    every problem (unknown keys only warn, like everywhere else in the file)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: {SECTION} must be a mapping of server names to settings, got {describe(raw)}")
    servers: dict[str, McpServerConfig] = {}
    problems: list[str] = []
    for name, entry in raw.items():
        where = f"{SECTION}.{name}"
        if not isinstance(name, str) or not NAME_RE.fullmatch(name) or "__" in name:
            problems.append(
                f"{where}: a server name is 1 to 32 letters, digits, - or _ (no __), starting with a letter or digit"
            )
            continue
        if not isinstance(entry, dict):
            problems.append(f"{where} must be a mapping of keys such as command: or url:, got {describe(entry)}")
            continue
        server, found = build_section(where, McpServerConfig, entry, path, warnings)
        problems.extend(found)
        if server is not None:
            problems.extend(f"{where}: {problem}" for problem in _transport_problems(server))
            servers[name] = server
    if problems:
        joined = "\n".join(f"  {problem}" for problem in problems)
        raise ConfigError(
            f"{path}: {problems[0]}" if len(problems) == 1 else f"{path}: {len(problems)} problems:\n{joined}"
        )
    return servers


def _transport_problems(server: McpServerConfig) -> list[str]:
    if bool(server.command) == bool(server.url):
        return ["give either command: (a program spoken to over stdio) or url: (streamable HTTP), not both"]
    stray = {"args": server.args, "env": server.env, "cwd": server.cwd} if server.url else {"headers": server.headers}
    kind = "an HTTP" if server.url else "a stdio"
    return [f"{key} does not apply to {kind} server" for key, value in stray.items() if value]


class MissingVariable(Exception):
    """`str()` names the variable and where it is used, never a value."""


def expand(text: str, where: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with each `${NAME}` replaced by the variable's value (`${NAME:-default}`: the default
    when unset or empty); raises MissingVariable naming the first one unset."""
    environ = os.environ if environ is None else environ

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if found:
            return found
        if default is not None:
            return default
        raise MissingVariable(f"{where} uses ${{{name}}}, which is not set in the environment")

    return VARIABLE_RE.sub(value, text)


def expand_map(values: Mapping[str, str], where: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    return {key: expand(value, f"{where}.{key}", environ) for key, value in values.items()}
