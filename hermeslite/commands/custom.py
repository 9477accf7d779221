"""The user's command files (extensions/command_files.py) as prompt commands of the registry.

Each front end loads them once, from its working directory and the user's
config directory, and says in one line each file it could not use and each
name it refused (a built-in command's). They run nothing: a command file is
text for the model, so a project's files need no `hermeslite trust`, as
Claude Code does not gate them; whatever the model then does goes through
the same approval and sandbox as any other request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hermeslite.extensions.command_files import CommandFile, CommandFiles, load_command_files
from hermeslite.extensions.reading import shown

from .mcp_prompts import names_a_server_prompt
from .registry import CommandRegistry, CommandSpec, PromptCommand


class CommandFileProvider:
    """The command files found when the front end started, as prompt commands."""

    def __init__(self, files: CommandFiles, cwd: Path) -> None:
        self._commands = [_prompt_command(file, cwd) for file in files.commands]

    def prompt_commands(self) -> Sequence[PromptCommand]:
        return self._commands


def _prompt_command(file: CommandFile, cwd: Path) -> PromptCommand:
    async def expand(args: str) -> str:
        return file.expand(args)

    spec = CommandSpec(file.name, file.argument_hint, f"{file.description} ({file.scope})", waits=True)
    return PromptCommand(spec, shown(file.path, cwd), expand)


@dataclass(frozen=True)
class LoadedCommands:
    registry: CommandRegistry
    problems: tuple[str, ...]  # one line each: a file not loaded, a name refused


def load_commands(cwd: Path) -> LoadedCommands:
    """The registry of a front end working in `cwd`: the built-in commands and the command files.

    Names that start with `mcp__` belong to the MCP servers' prompts, which join the registry only
    once their server is ready, after this is said: a file of such a name is refused here, in one
    line, rather than hiding a server's prompt later without a word."""
    files = load_command_files(cwd)
    reserved = [file for file in files.commands if names_a_server_prompt("/" + file.name)]
    kept = CommandFiles(tuple(f for f in files.commands if f not in reserved), files.problems)
    registry = CommandRegistry([CommandFileProvider(kept, cwd)])
    taken = [
        f"custom command {shown(file.path, cwd)} is skipped: names starting with mcp__ are the MCP servers' prompts"
        for file in reserved
    ]
    return LoadedCommands(registry, (*files.problems, *taken, *registry.refused()))
