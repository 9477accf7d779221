"""HermesApp: composes the widgets, hands what the user sends to workers and routes agent events.

The app holds no agent logic. What the user sends runs in workers Esc can
cancel, or waits in a queue under the input while the agent is busy (see
turns.py). Everything the agent says goes into an `EventFeed` and one drawing
task hands it, in order, to `EventRouter` (not through the message queue, so
a fast stream never delays a key press). Exceptions never reach the screen as
tracebacks: they become one line.

The input keeps the keyboard focus: nothing in the chat can take it, a
printable key typed while something else has it goes to the input, and Esc
brings the focus back before it cancels anything.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Footer
from textual.worker import Worker

from hermeslite.commands.custom import load_commands
from hermeslite.commands.mcp_prompts import McpPromptProvider
from hermeslite.commands.registry import TUI, CommandSpec, PromptCommand, UnknownCommand
from hermeslite.config import Settings
from hermeslite.display import neutralize, short_path
from hermeslite.store.errors import StoreError

from . import commands, history
from .feed import EventFeed, Settled
from .gcpause import GcPause
from .host import AgentHost
from .router import EventRouter
from .screens.approval import Approvals
from .screens.plan_card import APPROVE, PlanCard
from .screens.text_viewer import TextViewer
from .textual_messages import AgentReady, BootFailed
from .turns import BUSY_GROUPS, TurnRunner
from .widgets.activity import ActivityLine
from .widgets.chat_view import ChatView
from .widgets.header import HeaderBar
from .widgets.mention_complete import MentionComplete
from .widgets.mode_badge import ModeBadge
from .widgets.new_below import NewBelow
from .widgets.pressure_meter import PressureMeter
from .widgets.prompt_input import PromptInput
from .widgets.queued import QueuedMessages
from .widgets.slash_complete import SlashComplete
from .widgets.todo_pane import TodoPane
from .widgets.usage_badge import UsageBadge
from .widgets.warning_bar import WarningBar

if TYPE_CHECKING:  # not at run time: the first frame must not wait for the agent's modules
    from hermeslite.agent.loop import Agent
    from hermeslite.context.pressure import Pressure
    from hermeslite.llm.types import LLMClient
    from hermeslite.store.sessions import SessionStore
    from hermeslite.tools.base import ApprovalRequest

# A closed terminal window (SIGHUP) or a `kill` (SIGTERM) quits the way Ctrl+C does, so the session is
# closed properly: one with nothing of the user's in it is removed, not left in every listing as "(untitled)".
HANGUPS = () if sys.platform == "win32" else (signal.SIGHUP, signal.SIGTERM)

QUIT_WINDOW = 2.0  # seconds within which a second Ctrl+C quits
WELCOME = "Enter sends · / commands · !cmd runs cmd · Esc cancels · Ctrl+C twice quits"


class HermesApp(App[int]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere still find it
    TITLE = "hermeslite"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_turn", "Cancel"),
        Binding("ctrl+o", "toggle_card", "Expand", show=False),
        Binding("ctrl+t", "toggle_todos", "Todos", show=False),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True),
        Binding("ctrl+c", "quit_twice", "Quit", priority=True),
    ]
    activity: reactive[str] = reactive("")

    def __init__(
        self,
        settings: Settings,
        *,
        cwd: Path | None = None,
        session_id: str | None = None,
        llm: LLMClient | None = None,
        store: SessionStore | None = None,
        motion: bool = True,
        cwd_label: str | None = None,
        tune_gc: bool = False,
        notices: tuple[str, ...] = (),
        notes: list[str] | None = None,
        model_note: tuple[str, bool] | None = None,
        first_run: bool = False,
        mode: str | None = None,
    ) -> None:
        super().__init__()
        self.notices = notices  # start-up warnings the user must see here: stderr is hidden
        self.model_note = model_note  # (which model nobody named was picked, whether it is the embedded one)
        self.first_run = first_run  # offer to connect a provider (see screens/first_run.py)
        self._opening_notes = list(notes or [])  # how the session was chosen: shown after its transcript
        self.cwd = Path(cwd or Path.cwd())
        self.cwd_label = cwd_label or short_path(self.cwd)
        loaded = load_commands(self.cwd)  # a few small files: read before the first frame, for the dropdown
        self.commands = loaded.registry
        self._command_problems = loaded.problems
        self.commands.add(McpPromptProvider(lambda: self.host.agent))  # the MCP servers' prompts, once ready
        self.motion = motion  # False: no spinners, no cursor blink (snapshots, screenshots)
        self.gc = GcPause(tune_gc)
        self.feed = EventFeed()
        self.host = AgentHost(
            settings, self.cwd, self.feed, session_id=session_id, llm=llm, store=store, on_boot=self._booted, mode=mode
        )
        self._drawer: asyncio.Task | None = None
        self._cancel_note = ""
        self._last_ctrl_c = 0.0
        self.approvals = Approvals()
        self.turns = TurnRunner(self)
        # Kept as attributes, not queried: `query_one` searches the *current* screen, and agent
        # events keep arriving while a modal (approval, /context) is on top.
        self.header_bar = HeaderBar(id="header")
        self.chat = ChatView(id="chat", motion=motion)
        self.new_below = NewBelow(id="new-below")
        self.warning_bar = WarningBar(id="warning")
        self.prompt = PromptInput(history.load(), id="prompt")
        self.queued = QueuedMessages(id="queued")
        self.todo_pane = TodoPane(settings.display.todo_pane, id="todo-pane")
        self.meter = PressureMeter(id="meter")
        self.activity_line = ActivityLine(id="activity")
        self.mode_badge = ModeBadge(mode, id="mode")
        self.usage_badge = UsageBadge(id="usage")
        self._mode_pending: str | None = None  # the mode a queued Shift+Tab asked for

    # -- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self.header_bar
        yield self.chat
        yield self.new_below
        yield self.warning_bar
        yield self.todo_pane
        yield self.prompt
        yield self.queued
        with Horizontal(id="status"):
            yield self.meter
            yield self.activity_line
            yield self.usage_badge
            yield self.mode_badge
        yield Footer()

    async def on_mount(self) -> None:
        for hangup in HANGUPS:
            asyncio.get_running_loop().add_signal_handler(hangup, self.exit)
        self.header_bar.model, self.header_bar.cwd = self.host.model_name, self.cwd_label
        self.prompt.completer = SlashComplete(self.prompt, lambda: commands.entries(self.commands))
        await self.screen.mount(self.prompt.completer)
        self.prompt.mentions = MentionComplete(self.prompt, self.cwd)
        await self.screen.mount(self.prompt.mentions)
        self.prompt.cursor_blink = self.motion
        self.prompt.unqueue = self.queued.pop_last
        self.prompt.focus()
        self.watch(self.chat, "unseen", self.new_below.show)
        await self.chat.add_note(WELCOME, kind="welcome")
        for notice in (*self.notices, *self._command_problems):
            await self.show_notice(f"⚠ {notice}")
        if self.model_note is not None:
            text, warns = self.model_note
            await self.show_notice(text, severity="warning" if warns else "information")
        self._drawer = asyncio.create_task(self._draw_events(), name="hermeslite-draw")
        if self.gc.enabled:
            self.set_interval(0.5, lambda: self.gc.maybe_collect(time.monotonic() - self.prompt.last_key))
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """Only now start loading the model: the first frame never waits for litellm."""
        try:
            self.host.start()
        except Exception as exc:  # noqa: BLE001 - e.g. a broken install; the next send tries again
            self.post_message(BootFailed(exc))
        self.header_bar.model, self.header_bar.origin = self.host.model_name, self.host.model_origin or ""
        if self.first_run:
            from hermeslite.provider_setup import Choice

            from .screens.first_run import FirstRunScreen, connect

            def answered(choice: Choice | None) -> None:
                self.run_worker(connect(self, choice), group="session", exit_on_error=False)

            self.push_screen(FirstRunScreen(), answered)
        self.run_worker(self._preload, thread=True, group="preload", exit_on_error=False)

    @staticmethod
    def _preload() -> None:
        """Import what the first reply needs (Markdown, ~35 ms) while the model loads, not mid-stream."""
        import hermeslite.tui.widgets.compaction_card
        import hermeslite.tui.widgets.paced_stream  # noqa: F401

    def _booted(self, task: asyncio.Task) -> None:
        """Every start-up attempt ends here; a failure is reported by whoever waits for it, else here."""
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            self.post_message(AgentReady(task.result()))
        elif not any(w.group in ("turn", "command") and not w.is_finished for w in self.workers):
            self.post_message(BootFailed(error))

    @on(AgentReady)
    async def _on_ready(self, message: AgentReady) -> None:
        self.gc.freeze_loaded()
        await self.show_agent(message.agent, replay_transcript=len(message.agent.messages) > 1)
        for line in message.agent.startup_notes():
            await self.chat.add_note(line)
        if warning := self.host.window_warning():
            await self.show_notice(warning)
        if unconfined := self.host.sandbox_warning():
            self.notify(unconfined, severity="warning", markup=False, timeout=10)
        if workplace := self.host.workplace_warning():
            await self.show_notice(f"⚠ {workplace}")

    @on(BootFailed)
    async def _on_boot_failed(self, message: BootFailed) -> None:
        await self.report_error(f"Could not start the model: {message.error}")

    async def show_agent(self, agent: Agent, *, replay_transcript: bool) -> None:
        """Header, meter and (for a resumed session) the transcript of `agent`."""
        if replay_transcript:
            from .replay import replay

            await replay(self.chat, agent.messages)
        for note in self._opening_notes:
            await self.chat.add_note(note)
        for note in agent.notes:
            await self.chat.add_note(note, kind="warning")
        for note in agent.instruction_notes():
            await self.chat.add_note(note)
        self._opening_notes = []
        self.header_bar.starting = False
        self.header_bar.model, self.header_bar.origin = agent.model_name, self.host.model_origin or ""
        self.refresh_header()
        self.show_pressure(agent.pressure())
        self.mode_badge.show(agent.mode)
        self.usage_badge.show(agent.session_usage())
        self.todo_pane.show_items(agent.todo_entries())

    def refresh_header(self) -> None:
        agent = self.host.agent
        if agent is None:
            return
        self.usage_badge.show(agent.session_usage())
        try:
            info = agent.session_info()
        except StoreError:  # already reported by the save that failed; the title can wait
            return
        self.header_bar.session_title = (info.title if info else None) or "new session"

    def on_resize(self, event: events.Resize) -> None:
        self.usage_badge.fit(event.size.width)

    def show_pressure(self, pressure: Pressure) -> None:
        self.meter.show(pressure)
        self.warning_bar.show(pressure)

    def watch_activity(self, activity: str) -> None:
        self.activity_line.show(activity)

    async def show_notice(self, text: str, severity: str = "warning") -> None:
        """Something to read once (a config warning, an assumed window): a line in the chat, and a
        toast only when that line is out of sight."""
        self.toast_unless_seen(text, severity=severity)
        await self.chat.add_note(text, kind=severity)

    def toast_unless_seen(self, text: str, *, severity: str = "information", title: str = "") -> None:
        """A toast for a line the chat also gets, raised only when the user would not see that line
        (scrolled up, or a dialog open): otherwise it would say the same thing twice, over the chat."""
        if self.chat.following and len(self.screen_stack) == 1:
            return
        self.notify(text, title=title, severity=severity, markup=False)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast is neutralized: many repeat a provider's, a tool's or the model's words."""
        super().notify(neutralize(message), title=neutralize(title), severity=severity, timeout=timeout, markup=markup)

    # -- agent events ----------------------------------------------------------------

    async def _draw_events(self) -> None:
        """The one task that draws agent events, in order (see feed.py for why not messages)."""
        router = EventRouter(self)
        while True:
            event = await self.feed.next()
            self.feed.drawing = True
            try:
                if self.chat.is_attached:
                    await router.route(event)
            except Exception as exc:  # noqa: BLE001 - a drawing bug must not take the session down
                await self.report_error(f"display error ({type(event).__name__}): {exc}")
            finally:
                self.feed.drawing = False

    # -- input -----------------------------------------------------------------------------

    @on(PromptInput.Submitted)
    async def _on_submitted(self, message: PromptInput.Submitted) -> None:
        history.append(message.text)
        await self.turns.send(message.text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """When a turn or a session switch ends, however it ends, the queue moves on: through the
        feed, so the turn's last events are drawn before the next message appears."""
        if event.worker.group in BUSY_GROUPS and event.worker.is_finished:
            self.feed(Settled())

    def run_slash(self, text: str) -> None:
        """Run `/name args`; unknown names get a line with the closest match."""
        try:
            cmd, args = self.commands.parse(text, TUI)
        except UnknownCommand as exc:
            self.toast_unless_seen(str(exc), severity="warning")
            self.run_worker(self.chat.add_note(str(exc), kind="warning"), group="ui")
            return
        if isinstance(cmd, PromptCommand):
            self.turns.run_prompt(cmd, args)
            return
        self.run_worker(self._run_command(cmd, args), group="session" if cmd.waits else "command", exit_on_error=False)

    async def _run_command(self, cmd: CommandSpec, args: str) -> None:
        try:
            await commands.handlers.for_command(cmd)(self, args)
        except Exception as exc:  # noqa: BLE001 - one line on screen, never a traceback
            await self.report_error(f"{cmd.slash}: {exc}")

    async def report_error(self, error: BaseException | str) -> None:
        """An error as a notification and one inline line; the details stay in the message text."""
        text = error if isinstance(error, str) else (str(error) or type(error).__name__)
        line = text.strip().splitlines()[0] if text.strip() else "unknown error"
        if not self.chat.is_attached:
            self.notify(line, severity="error", markup=False)
            return
        self.toast_unless_seen(line, severity="error")
        await self.chat.add_error(line)

    # -- views ----------------------------------------------------------------------------

    def show_view(self, title: str, body: str, *, table: bool = False) -> None:
        self.push_screen(TextViewer(title, body, table=table))

    def offer_draft(self, text: str) -> None:
        """Put `text` in the input to edit and send (a rewound turn), unless the user is typing there."""
        if not self.prompt.text.strip():
            self.prompt.load_text(text)
            self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()

    def get_system_commands(self, screen):  # the Ctrl+P palette
        yield from super().get_system_commands(screen)
        yield from commands.system_commands(self)

    def ask_approval(self, request: ApprovalRequest, answer: asyncio.Future[bool]) -> None:
        self.approvals.ask(self, request, answer)

    # -- keys ---------------------------------------------------------------------------

    def action_cancel_turn(self) -> None:
        """Esc: first back to the input if the focus wandered, else cancel the running turn
        (what is queued stays queued and goes out next)."""
        if self.focused is not self.prompt:
            self.prompt.focus()
        else:
            self.stop_turn()

    def stop_turn(self) -> bool:
        """Cancel the running turn, if one runs; True if one did."""
        if not self.turns.turn_running:
            return False
        self._cancel_note = self.chat.activity()
        self.workers.cancel_group(self, "turn")
        return True

    def on_key(self, event: events.Key) -> None:
        """A printable key that nothing used goes to the input, wherever the focus was."""
        if (
            event.is_printable
            and event.character
            and self.screen is self.prompt.screen
            and self.focused is not self.prompt
        ):
            event.stop()
            self.prompt.focus()
            self.prompt.insert(event.character)

    @on(PromptInput.ChatKey)
    def _on_chat_key(self, message: PromptInput.ChatKey) -> None:
        chat = self.chat
        scroll = {
            "pageup": chat.scroll_page_up,
            "pagedown": chat.scroll_page_down,
            "ctrl+home": chat.scroll_home,
            "ctrl+end": chat.jump_to_end,
        }
        scroll[message.key]()

    @on(NewBelow.Jump)
    def _on_jump(self) -> None:
        self.chat.jump_to_end()

    def action_cycle_mode(self) -> None:
        """Shift+Tab: the next mode (default, accept-edits, plan); during a turn, queued as /mode is."""
        from hermeslite.agent.modes import ModeError, next_mode

        target = next_mode(self._mode_pending or self.mode_badge.mode)
        agent = self.host.agent
        if agent is None or self.turns.busy or self.queued.items:
            self._mode_pending = target
            self.run_worker(self.turns.send(f"/mode {target}"), group="ui")
            return
        try:
            agent.set_mode(target)
        except ModeError as exc:  # no kernel sandbox: the cycle goes on past plan mode
            self.notify(str(exc), severity="warning", markup=False)
            agent.set_mode(next_mode(target))

    def show_mode(self, mode: str) -> None:
        """The status bar's mode, after the agent switched."""
        if self._mode_pending == mode:
            self._mode_pending = None
        self.mode_badge.show(mode)

    def offer_plan(self, plan: str) -> None:
        """The plan card for the model's plan: Approve leaves plan mode and tells the model to proceed."""

        def answered(answer: str | None) -> None:
            if answer == APPROVE:
                self.run_worker(self._approve_plan(), group="ui", exit_on_error=False)
            self.prompt.focus()

        self.push_screen(PlanCard(plan, last_typed=self.prompt.last_key), answered)

    async def _approve_plan(self) -> None:
        from hermeslite.agent.modes import APPROVED, DEFAULT

        (await self.host.ready()).set_mode(DEFAULT)
        await self.turns.send(APPROVED)

    def action_toggle_card(self) -> None:
        """Ctrl+O: expand or collapse the newest tool panel or compaction card."""
        self.chat.toggle_latest()

    def action_toggle_todos(self) -> None:
        """Ctrl+T: show or hide the todo pane, against what display.todo_pane decided."""
        self.todo_pane.toggle()

    def take_cancel_note(self) -> str:
        note, self._cancel_note = self._cancel_note or "stopped the turn", ""
        return note

    def action_quit_twice(self) -> None:
        """Ctrl+C stops a running turn first, as in other chat agents (a user reaches for it to stop a
        reply, and a second press would otherwise quit mid-turn); twice in a row quits."""
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW:
            self.exit(0)
            return
        self._last_ctrl_c = now
        stopped = "Stopped the turn. " if self.stop_turn() else ""
        self.notify(f"{stopped}Press Ctrl+C again to quit (the session is saved).", timeout=QUIT_WINDOW)

    async def on_unmount(self) -> None:
        for hangup in HANGUPS:
            asyncio.get_running_loop().remove_signal_handler(hangup)
        if self._drawer is not None:
            self._drawer.cancel()
        self.gc.restore()
        self.host.close()
