"""What the front ends ask of the MCP servers, through the agent: /mcp, /mcp restart, prompts as commands.

Plain values out (reports, lines, prompt texts) and Unavailable, whose text
is the one line to show, for what cannot be done; no front end holds the
servers or their manager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermeslite.tools.mcp.manager import log_dir
from hermeslite.tools.mcp.names import PREFIX
from hermeslite.tools.mcp.status import Unavailable

from .mcp import McpPrompt, ServerReport

if TYPE_CHECKING:
    from .loop import Agent


def server_reports(agent: Agent) -> list[ServerReport]:
    """Every configured server, for /mcp; empty when there are none."""
    mcp = agent.deps.mcp
    return mcp.reports(agent.deps.registry) if mcp is not None else []


def logs_folder() -> str:
    """Where stdio servers' stderr is written, one <name>.log each."""
    return str(log_dir())


async def restart_server(agent: Agent, name: str) -> tuple[bool, str]:
    """`/mcp restart NAME`: whether the server is ready again and the line saying so; raises
    Unavailable for a name it cannot restart."""
    mcp = agent.deps.mcp
    if mcp is None:
        raise Unavailable("no MCP servers are configured (mcp_servers: in the config file)")
    return await mcp.restart(name)


def prompt_commands(agent: Agent) -> list[McpPrompt]:
    """The prompts of the servers ready now, as slash commands."""
    mcp = agent.deps.mcp
    return mcp.prompts() if mcp is not None else []


async def prompt_text(agent: Agent, command: str, args: str) -> str:
    """The message `/mcp__server__prompt args` sends; raises Unavailable with the line to show."""
    mcp = agent.deps.mcp
    if mcp is None or not command.startswith(PREFIX):
        raise Unavailable(f"there is no MCP prompt /{command}: no MCP servers are configured")
    return await mcp.prompt_text(command, args)


async def wait_for_servers(agent: Agent) -> None:
    """Until no MCP server is still starting, each at most its startup_timeout: where nobody sees
    prompts join (`-p`, the line chat), a `/mcp__...` line waits before it is read."""
    if agent.deps.mcp is not None:
        await agent.deps.mcp.servers.wait_started()
