"""What the slash commands and the event router may use of the app, as protocols.

The app creates both and hands itself over; typing that hand-over with
these protocols, instead of with `HermesApp`, keeps tui/commands.py and
tui/router.py from importing app.py, which imports them (no import cycle),
and says in one place how small the surface they touch is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen

    from hermeslite.agent.loop import Agent
    from hermeslite.commands.registry import CommandRegistry

    from .gcpause import GcPause
    from .host import AgentHost
    from .turns import TurnRunner
    from .widgets.activity import ActivityLine
    from .widgets.chat_view import ChatView
    from .widgets.header import HeaderBar
    from .widgets.mode_badge import ModeBadge
    from .widgets.queued import QueuedMessages
    from .widgets.todo_pane import TodoPane


class Notifier(Protocol):
    def notify(
        self, message: str, *, title: str = ..., severity: Any = ..., timeout: float | None = ..., markup: bool = ...
    ) -> None: ...

    async def report_error(self, error: BaseException | str) -> None: ...

    def toast_unless_seen(self, text: str, *, severity: str = ..., title: str = ...) -> None: ...


class CommandSurface(Notifier, Protocol):
    """The app as a TUI command handler sees it."""

    host: AgentHost
    chat: ChatView
    header_bar: HeaderBar
    turns: TurnRunner
    commands: CommandRegistry

    async def show_agent(self, agent: Agent, *, replay_transcript: bool) -> None: ...

    def show_view(self, title: str, body: str, *, table: bool = ...) -> None: ...

    def offer_draft(self, text: str) -> None: ...

    async def show_notice(self, text: str, severity: str = ...) -> None: ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = ...) -> Any: ...

    def run_worker(self, work: Any, *, group: str = ...) -> Any: ...

    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...

    def exit(self, result: int | None = ...) -> None: ...


class EventSurface(Notifier, Protocol):
    """The app as the event router sees it."""

    chat: ChatView
    activity: str
    gc: GcPause
    activity_line: ActivityLine
    turns: TurnRunner
    mode_badge: ModeBadge
    queued: QueuedMessages
    todo_pane: TodoPane

    def show_pressure(self, pressure: Any) -> None: ...

    def take_cancel_note(self) -> str: ...

    def refresh_header(self) -> None: ...

    def ask_approval(self, request: Any, answer: asyncio.Future[bool]) -> None: ...

    def offer_plan(self, plan: str) -> None: ...

    def show_mode(self, mode: str) -> None: ...
