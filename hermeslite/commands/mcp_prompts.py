"""The prompts of the MCP servers as prompt commands of the registry: `/mcp__github__review_pr 123`.

The list is asked for each time it is read, so a server's prompts join the
dropdown, the palette, /help and the parser once it is ready, and leave with
it. Running one asks the server for the prompt's text, which is sent as the
user's message (a failure is one line: a server gone, a missing argument).
Nothing of the agent is imported before there is an agent to ask: the app
builds its registry before its first frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from .registry import CommandSpec, PromptCommand

if TYPE_CHECKING:
    from hermeslite.agent.loop import Agent


PREFIX = "/mcp__"


def names_a_server_prompt(text: str) -> bool:
    """Whether `text` starts with what an MCP prompt command looks like (`/mcp__server__prompt`)."""
    return text.lstrip()[: len(PREFIX)].lower() == PREFIX


class McpPromptProvider:
    """The prompts of the servers ready now, for the agent `current()` returns (None: none yet)."""

    def __init__(self, current: Callable[[], Agent | None]) -> None:
        self._current = current

    def prompt_commands(self) -> Sequence[PromptCommand]:
        agent = self._current()
        if agent is None:
            return []
        from hermeslite.agent.mcp_commands import prompt_commands, prompt_text

        return [
            PromptCommand(
                CommandSpec(p.name, p.args, p.help or f"a prompt of the MCP server {p.server}", waits=True),
                f"MCP server {p.server}",
                partial(prompt_text, agent, p.name),
            )
            for p in prompt_commands(agent)
        ]
