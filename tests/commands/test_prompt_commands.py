"""Commands from outside the code (command files, an MCP server's prompts) in the one registry: a
provider's commands are found, suggested and queued like messages; a built-in name, or one an
earlier provider has, is refused in one line; a provider that fills in late is seen at once."""

from __future__ import annotations

import io

import pytest

from hermeslite.commands.registry import (
    COMMANDS,
    LINE,
    TUI,
    CommandRegistry,
    CommandSpec,
    PromptCommand,
    UnknownCommand,
)
from hermeslite.headless import HeadlessPrinter
from hermeslite.line_chat import LineChat
from hermeslite.line_commands import help_text


class Provider:
    """A provider like the MCP client's: its list may grow after the front end started."""

    def __init__(self, origin: str, *names: str, fails: bool = False) -> None:
        self.origin = origin
        self.commands = [self.make(name, fails) for name in names]

    def make(self, name: str, fails: bool = False) -> PromptCommand:
        async def expand(args: str) -> str:
            if fails:
                raise RuntimeError("the server went away")
            return f"{name} says {args}"

        return PromptCommand(CommandSpec(name, "[what]", f"from {self.origin}", waits=True), self.origin, expand)

    def prompt_commands(self) -> list[PromptCommand]:
        return self.commands


def test_a_providers_commands_join_the_built_in_ones():
    registry = CommandRegistry([Provider("MCP server docs", "mcp__docs__search")])
    assert [c.name for c in registry.specs()] == [*(c.name for c in COMMANDS), "mcp__docs__search"]
    found, args = registry.parse("/mcp__docs__search  the index ", TUI)
    assert isinstance(found, PromptCommand) and args == "the index"
    builtin, _ = registry.parse("/context", LINE)
    assert builtin is next(c for c in COMMANDS if c.name == "context")


def test_built_in_names_and_aliases_and_names_taken_earlier_are_refused_in_one_line_each():
    files = Provider(".hermeslite/commands", "help", "EXIT", "review")
    server = Provider("MCP server git", "review", "log")
    registry = CommandRegistry([files, server])
    assert [c.spec.name for c in registry.prompt_commands()] == ["review", "log"]
    assert registry.refused() == [
        "/help from .hermeslite/commands is not offered: /help is a built-in command",
        "/EXIT from .hermeslite/commands is not offered: /EXIT is a built-in command",
        "/review from MCP server git is not offered: .hermeslite/commands has it",
    ]


def test_names_are_found_whatever_their_case():
    registry = CommandRegistry([Provider("MCP server gh", "mcp__GitHub__Review")])
    found, _ = registry.parse("/mcp__github__review 12", TUI)
    assert isinstance(found, PromptCommand) and found.spec.name == "mcp__GitHub__Review"


def test_a_provider_that_fills_in_late_is_seen_at_once():
    provider = Provider("MCP server late")
    registry = CommandRegistry([provider])
    with pytest.raises(UnknownCommand):
        registry.parse("/summarize", TUI)
    provider.commands.append(provider.make("summarize"))
    assert isinstance(registry.parse("/summarize", TUI)[0], PromptCommand)


def test_prompt_commands_are_suggested_and_wait_for_the_turn_like_messages():
    registry = CommandRegistry([Provider("files", "deploy")])
    with pytest.raises(UnknownCommand, match=r"^Unknown command /deplyo\. Did you mean /deploy\?"):
        registry.parse("/deplyo", TUI)
    assert registry.closest("rollback") == "rewind"  # another agent's name still names ours
    assert registry.waits_for_turn("/deploy prod") and not registry.waits_for_turn("/context")
    assert not CommandRegistry().waits_for_turn("/deploy prod")  # unknown: runs at once, to say so


async def test_the_line_chat_runs_a_prompt_command_and_a_failing_one_is_one_line(make_agent, scripted_server):
    agent, _ = make_agent()
    out, err = io.StringIO(), io.StringIO()
    agent.subscribe(HeadlessPrinter(out, err))
    registry = CommandRegistry([Provider("ok", "greet"), Provider("broken", "fetch", fails=True)])
    chat = LineChat(agent, agent.deps.settings, agent.deps.store, out, err, registry)
    await chat.handle("/greet the team")
    assert [m["content"] for m in scripted_server.requests[-1]["messages"] if m["role"] == "user"] == [
        "greet says the team"
    ]
    assert not chat.failed
    await chat.handle("/fetch x")
    assert err.getvalue().splitlines()[-1] == "/fetch: the server went away" and chat.failed
    assert len(scripted_server.requests) == 1  # nothing was sent for it
    assert "Custom commands (what they expand to is sent as your message)" in help_text(registry)


async def test_p_with_a_prompt_command_that_fails_is_one_line_and_leaves_no_session(make_agent, scripted_server):
    from hermeslite.chat import _one_prompt
    from hermeslite.errors import UserFacingError

    agent, _ = make_agent()
    registry = CommandRegistry([Provider("broken", "fetch", fails=True), Provider("ok", "greet")])
    with pytest.raises(UserFacingError, match=r"^/fetch: the server went away$"):
        await _one_prompt(agent, "/fetch x", registry)
    assert scripted_server.requests == [] and make_agent.store.get_session(agent.session_id) is None
    again, _ = make_agent()
    assert (await _one_prompt(again, "/greet you", registry)).ok
    assert scripted_server.requests[-1]["messages"][-1]["content"] == "greet says you"
