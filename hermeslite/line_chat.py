"""The line chat: a plain line-by-line conversation for terminals without the TUI, and for scripts.

`LineChat.handle` takes one line as the user typed it: a `!command`, a
slash command (looked up in the registry and run by its handler in
line_commands.py) or a message for the model. What was asked for goes to
stdout, reports and faults to stderr, each fault one line. A failed turn or
command is remembered, so a script feeding lines on stdin can tell from the
exit code that something is missing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from hermeslite.commands.mcp_prompts import names_a_server_prompt
from hermeslite.commands.registry import LINE, CommandRegistry, PromptCommand, UnknownCommand, is_command
from hermeslite.config import Settings
from hermeslite.context.user_command import shell_command_in
from hermeslite.display import neutralize
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore

from . import line_commands

if TYPE_CHECKING:
    from hermeslite.agent.loop import Agent


class LineChat:
    def __init__(
        self,
        agent: Agent,
        settings: Settings,
        store: SessionStore,
        out: TextIO,
        err: TextIO,
        commands: CommandRegistry | None = None,
    ) -> None:
        self.agent = agent
        self.commands = commands or CommandRegistry()  # the built-in commands and the custom ones
        self.settings = settings
        self.store = store
        self.out, self.err = out, err
        self.model_cfg: ModelConfig = settings.model  # follows /model
        self.listed_models: list[str] = []  # what the last `/model` numbered
        self.failed = False  # a turn or a command failed: the chat exits 1
        self.done = False  # /quit

    async def handle(self, text: str) -> None:
        """One non-empty line: a `!command`, a slash command, or a message for the model."""
        if command := shell_command_in(text):
            await self._user_command(command)
        elif is_command(text):
            await self._command(text)
        else:
            await self._turn(text)

    async def _turn(self, text: str) -> None:
        finished = await self.agent.run_turn(text)
        self.failed = self.failed or not finished.ok or not finished.saved

    async def _command(self, text: str) -> None:
        if names_a_server_prompt(text):  # nobody sees the servers' prompts join here: wait for them
            from hermeslite.agent.mcp_commands import wait_for_servers

            await wait_for_servers(self.agent)
        try:
            spec, args = self.commands.parse(text, LINE)
        except UnknownCommand as exc:
            self.say(str(exc))
            return
        if isinstance(spec, PromptCommand):
            await self._prompt(spec, args)
            return
        try:
            await line_commands.handlers.for_command(spec)(self, args)
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback
            self.fail(f"{spec.slash}: {exc}")

    async def _prompt(self, command: PromptCommand, args: str) -> None:
        """A custom command: the text it expands to goes to the model as the user's message."""
        try:
            text = await command.expand(args)
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback
            self.fail(f"{command.spec.slash}: {exc}")
            return
        await self._turn(text)

    async def _user_command(self, command: str) -> None:
        """`!command`: its output on stdout, as the user would see it in a shell."""
        result = await self.agent.run_user_command(command)
        if result is not None:
            self.show(result.content.rstrip("\n"))

    # -- what the handlers use (line_commands.LineSurface) --------------------------

    def show(self, text: str) -> None:
        self.out.write(neutralize(text) + "\n")
        self.out.flush()

    def show_diff(self, text: str) -> None:
        from hermeslite.commands.diff_view import ansi_diff

        coloured = ansi_diff(text) if _is_terminal(self.out) else neutralize(text)
        self.out.write(coloured + "\n")
        self.out.flush()

    def say(self, text: str) -> None:
        self.err.write(neutralize(text) + "\n")
        self.err.flush()

    def fail(self, text: str = "") -> None:
        if text:
            self.say(text)
        self.failed = True

    def open_session(self, session_id: str | None) -> Agent:
        """Go on with `session_id` (None: a new session) on the same model, printer and store."""
        from hermeslite.agent.factory import build_successor

        old = self.agent
        old.discard_if_unused()
        settings = replace(self.settings, model=self.model_cfg)  # the model /model switched to, if it did
        agent = build_successor(old, settings, session_id=session_id, store=self.store)
        self.store.release(old.session_id)  # another process may continue it now
        agent.carry_calibration(old)
        for subscriber in old.subscribers:
            agent.subscribe(subscriber)
        self.agent = agent
        return agent

    async def switch_model(self, name: str) -> None:
        from hermeslite.agent.model_switch import switch_model

        _, self.model_cfg = await switch_model(self.agent, self.model_cfg, name, self.settings.agent.max_retries)

    def quit(self) -> None:
        self.agent.discard_if_unused()
        self.done = True


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
