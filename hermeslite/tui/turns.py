"""What the user sends, run as the app's workers: at once, or queued until the agent is idle.

A turn, a `!command` or a /compress runs in an exclusive async worker of the
"turn" group on the app's own loop, so Esc cancels it by cancelling the
group: the agent repairs the transcript and reports TurnFinished(cancelled=True).
Commands that switch the session or the model run in the "session" group.
While either group works, what the user sends that needs an idle agent waits
in the queue under the input and goes out, in order, when the work ends.

Kept out of app.py so the app stays a composition of widgets. The runner
reaches the app through `TurnSurface`, defined here rather than in
surface.py so that the surfaces there can name `TurnRunner` without an
import cycle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from hermeslite.commands.registry import CommandRegistry, PromptCommand, is_command
from hermeslite.context.user_command import shell_command_in

if TYPE_CHECKING:
    from textual.worker import Worker
    from textual.worker_manager import WorkerManager

    from hermeslite.agent.loop import Agent

    from .host import AgentHost
    from .widgets.chat_view import ChatView
    from .widgets.queued import QueuedMessages

BUSY_GROUPS = ("turn", "session")  # workers during which what needs an idle agent is queued


class TurnSurface(Protocol):
    """The app as the turn runner sees it."""

    host: AgentHost
    chat: ChatView
    queued: QueuedMessages
    activity: str
    commands: CommandRegistry

    @property
    def workers(self) -> WorkerManager: ...

    def run_worker(
        self, work: Any, *, name: str | None = ..., group: str = ..., exit_on_error: bool = ..., exclusive: bool = ...
    ) -> Worker[Any]: ...

    def run_slash(self, text: str) -> None: ...

    async def report_error(self, error: BaseException | str) -> None: ...


class TurnRunner:
    def __init__(self, app: TurnSurface) -> None:
        self.app = app

    async def send(self, text: str) -> None:
        """What the user sent (typed, from the palette or a picker): run now, or queue it.

        A message, a `!command` or a command that needs an idle agent waits while
        a turn runs, and also while others wait, so the order is always the
        order typed. Commands that only look (/help, /context...) run at once.
        """
        if self.app.commands.waits_for_turn(text) and (self.busy or self.app.queued.items):
            self.app.queued.push(text)
            await self.send_queued()
            return
        if not is_command(text):
            self.app.chat.jump_to_end()  # sent now: the user wants to see it (a queued one does not jump)
        await self.dispatch(text)

    async def send_queued(self) -> None:
        """Send the oldest queued message, if nothing is running (called again when it ends)."""
        if not self.busy and (text := self.app.queued.pop_first()) is not None:
            await self.dispatch(text)

    async def dispatch(self, text: str) -> None:
        if is_command(text):
            self.app.run_slash(text)
        elif command := shell_command_in(text):
            await self.app.chat.add_user(text)
            self._run_shell(command)
        else:
            await self.app.chat.add_user(text)
            self._run_turn(text)

    @property
    def busy(self) -> bool:
        """A turn, a `!command`, a compaction or a session switch is under way."""
        return any(w.group in BUSY_GROUPS and not w.is_finished for w in self.app.workers)

    @property
    def turn_running(self) -> bool:
        """Something Esc can cancel is running."""
        return any(w.group == "turn" and not w.is_finished for w in self.app.workers)

    def _run_turn(self, text: str) -> None:
        self._agent_job(
            lambda agent: agent.run_turn(text),
            "thinking",
            "Cancelled before the model was ready; the message was not sent.",
        )

    def _run_shell(self, command: str) -> None:
        """`!command`: the agent runs it as the terminal tool would and keeps the output for the next turn."""
        self._agent_job(
            lambda agent: agent.run_user_command(command),
            f"running {command}",
            "Cancelled before the model was ready; the command did not run.",
        )

    def run_prompt(self, command: PromptCommand, args: str) -> None:
        """A custom command: the text it expands to is sent as the user's message, shown as sent."""

        async def send(agent: Agent) -> object:
            try:
                text = await command.expand(args)
            except Exception as exc:  # noqa: BLE001 - e.g. a server that cannot give its prompt: one line
                await self.app.report_error(f"{command.spec.slash}: {exc}")
                return None
            self.app.chat.jump_to_end()
            await self.app.chat.add_user(text)
            return await agent.run_turn(text)

        self._agent_job(send, "thinking", "Cancelled before the model was ready; the command was not sent.")

    def start_compress(self, focus: str | None, upto: int | None = None) -> None:
        """/compress [--upto N] [focus]; a turn number this session does not have is one line, not a pass."""

        async def compress(agent: Agent) -> object:
            from hermeslite.agent.controls import upto_error

            if (error := upto_error(agent, upto)) is not None:
                await self.app.chat.add_note(error, kind="warning")
                return None
            return await agent.compress_now(focus, upto)

        self._agent_job(compress, "compressing", "Cancelled: compression stopped; the transcript is unchanged.")

    def _agent_job(self, job: Callable[[Agent], Awaitable[object]], activity: str, cancelled: str) -> None:
        """Run `job(agent)` as the one piece of work Esc cancels."""
        self._in_turn(partial(self._agent_work, job, activity, cancelled), "_agent_job")

    async def _agent_work(self, job: Callable[[Agent], Awaitable[object]], activity: str, cancelled: str) -> None:
        """A failure is one line. The agent reports its own cancellations (TurnFinished); what
        arrives here was cancelled before the agent was ready, or is a compaction."""
        app = self.app
        app.activity = "starting the model" if app.host.agent is None else activity
        try:
            agent = await app.host.ready()
            app.activity = activity
            await job(agent)
        except asyncio.CancelledError:
            await app.chat.cancel_running()
            await app.chat.add_note(cancelled, kind="cancelled")
            raise
        except Exception as exc:  # noqa: BLE001
            await app.report_error(exc)
        finally:
            app.activity = ""

    def run_in_turn(self, job: Callable[[], Awaitable[None]], activity: str, cancelled: str) -> Worker[None]:
        """Run `job` as the turn does: one at a time, shown as `activity`, Esc cancels it
        (then the note says `cancelled`)."""
        return self._in_turn(partial(self._turn_work, job, activity, cancelled), "run_in_turn")

    async def _turn_work(self, job: Callable[[], Awaitable[None]], activity: str, cancelled: str) -> None:
        app = self.app
        app.activity = activity
        try:
            await job()
        except asyncio.CancelledError:
            await app.chat.add_note(f"Cancelled: {cancelled}.", kind="cancelled")
            raise
        except Exception as exc:  # noqa: BLE001
            await app.report_error(exc)
        finally:
            app.activity = ""

    def _in_turn(self, work: Callable[[], Awaitable[None]], name: str) -> Worker[None]:
        """`work` as the app's one worker of the "turn" group (any earlier one is cancelled)."""
        return self.app.run_worker(work, name=name, group="turn", exclusive=True, exit_on_error=False)
