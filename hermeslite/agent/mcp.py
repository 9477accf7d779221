"""The agent's side of its MCP servers: the tools a turn offers, the prompts, and what /mcp shows.

The tool schemas a request carries are part of the prefix the provider
caches, and a turn's requests must agree on them, so the MCP tools are chosen
once per user turn, at its start, from the servers ready then: a server that
gets ready later joins at the next turn, one that fails leaves at the next
turn (a call to it meanwhile is an error the model reads). They follow the
built-in tools, sorted by name. A run with nobody watching the screen (`-p`,
the line chat) first waits for servers still starting, each at most its
startup_timeout; the app does not: its tools join as their servers get ready.

The front ends reach all this through mcp_commands.py, which returns plain
values (for /mcp, /context and the command list).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from hermeslite.tools.base import function_schema
from hermeslite.tools.mcp.adapter import McpTool
from hermeslite.tools.mcp.manager import McpServers
from hermeslite.tools.mcp.names import prompt_command
from hermeslite.tools.mcp.status import PromptInfo, ServerStatus, State, Unavailable
from hermeslite.tools.registry import ToolRegistry

from .ledger import schema_tokens


@dataclass(frozen=True)
class McpPrompt:
    """An MCP prompt as a slash command: `/mcp__server__prompt args`."""

    name: str  # the command, without the slash
    args: str  # `<path> [focus]`: required arguments in angle brackets
    help: str
    server: str


@dataclass(frozen=True)
class ServerReport:
    """One server for /mcp and /context: its status, the tokens each of its tools' schemas costs,
    and its prompts as commands."""

    status: ServerStatus
    tools: tuple[tuple[str, int], ...]  # (the name the model calls it by, schema tokens), by name
    offered: bool  # its tools are in the current turn's requests
    prompts: tuple[McpPrompt, ...] = ()

    @property
    def tokens(self) -> int:
        return sum(tokens for _, tokens in self.tools)


class McpTools:
    """The agent's view of the process's servers (shared by every agent of the process)."""

    def __init__(self, servers: McpServers) -> None:
        self.servers = servers

    async def offer(self, registry: ToolRegistry, *, wait: bool) -> None:
        """Put the tools of every ready server into `registry` for the turn that starts."""
        if wait:
            await self.servers.wait_started()
        registry.offer(tool for status in self._ready() for tool in self._tools(status))

    def _ready(self) -> list[ServerStatus]:
        return [status for status in self.servers.statuses() if status.state is State.READY]

    def _tools(self, status: ServerStatus) -> list[McpTool]:
        config = self.servers.configs[status.name]
        return [McpTool(status.name, info, config, self.servers) for info in status.tools]

    def reports(self, registry: ToolRegistry) -> list[ServerReport]:
        offered = {tool.name for tool in registry.offered}
        reports = []
        for status in self.servers.statuses():
            tools = tuple((tool.name, schema_tokens([function_schema(tool)])) for tool in self._tools(status))
            offers = bool(tools) and tools[0][0] in offered
            reports.append(ServerReport(status, tools, offers, tuple(_commands(status))))
        return reports

    def prompts(self) -> list[McpPrompt]:
        return [command for status in self._ready() for command in _commands(status)]

    async def prompt_text(self, command: str, args: str) -> str:
        """The text of the prompt `/command args` names; raises Unavailable with the line to show."""
        ready = ((status.name, prompt) for status in self._ready() for prompt in status.prompts)
        found = next(((server, p) for server, p in ready if prompt_command(server, p.name) == command), None)
        if found is None:
            known = ", ".join(f"/{p.name}" for p in self.prompts()) or "none"
            raise Unavailable(f"there is no MCP prompt /{command} (ready now: {known})")
        server, prompt = found
        return await self.servers.get_prompt(server, prompt.name, prompt_arguments(prompt, args))

    async def restart(self, name: str) -> tuple[bool, str]:
        """Restart server `name`: whether it is ready again, and the line saying so."""
        status = await self.servers.restart(name)
        if status.state is State.READY:
            count = len(status.tools)
            tools = f"{count} tool{'s' if count != 1 else ''}"
            return True, f"MCP server {name} restarted: {tools}, offered from the next message."
        return False, f"MCP server {name} failed again: {status.reason}"


def _commands(status: ServerStatus) -> list[McpPrompt]:
    return [
        McpPrompt(prompt_command(status.name, p.name), _hint(p), p.description, status.name) for p in status.prompts
    ]


def _hint(prompt: PromptInfo) -> str:
    return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments)


def prompt_arguments(prompt: PromptInfo, text: str) -> dict[str, str]:
    """`/mcp__server__prompt a b` read as the prompt's arguments: `name=value` by name, other words in the
    declared order (the last declared one takes whatever words are left)."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise Unavailable(str(exc)) from None
    names = [argument.name for argument in prompt.arguments]
    values: dict[str, str] = {}
    loose: list[str] = []
    for word in words:
        key, equals, value = word.partition("=")
        if equals and key in names:
            values[key] = value
        else:
            loose.append(word)
    free = [name for name in names if name not in values]
    for index, name in enumerate(free):
        if index >= len(loose):
            break
        values[name] = " ".join(loose[index:]) if index == len(free) - 1 else loose[index]
    if len(loose) > len(free) and not free:
        raise Unavailable(f"it takes {'no arguments' if not names else 'only ' + ', '.join(names)}")
    missing = [a.name for a in prompt.arguments if a.required and a.name not in values]
    if missing:
        raise Unavailable(f"{', '.join(missing)} is required ({_hint(prompt)})")
    return values
