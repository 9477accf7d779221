"""HermesApp: composes the widgets, runs turns in workers and routes agent events.

The app holds no agent logic. A turn or a /compress runs in an exclusive
async worker of the "turn" group on the app's own loop, so Esc cancels it by
cancelling the group: the agent repairs the transcript and reports
TurnFinished(cancelled=True). Everything the agent says goes into an
`EventFeed` and one drawing task hands it, in order, to `EventRouter` (not
through the message queue, so a fast stream never delays a key press).
Exceptions never reach the screen as tracebacks: they become one line.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Footer, Static

from hermeslite.config import Settings
from hermeslite.display import neutralize
from hermeslite.store.errors import StoreError

from . import commands, history
from .format import short_path
from .feed import EventFeed
from .host import AgentHost
from .gcpause import GcPause
from .messages import AgentReady, BootFailed
from .router import EventRouter
from .screens.approval import Approvals
from .screens.text_viewer import TextViewer
from .widgets.chat_view import ChatView
from .widgets.header import HeaderBar
from .widgets.pressure_meter import PressureMeter
from .widgets.prompt_input import PromptInput
from .widgets.slash_complete import SlashComplete
from .widgets.warning_bar import WarningBar

QUIT_WINDOW = 2.0  # seconds within which a second Ctrl+C quits
WELCOME = "Enter sends · / for commands · Esc cancels a turn · Ctrl+C twice quits"


class HermesApp(App[int]):
    CSS_PATH = Path(__file__).with_name("app.tcss")   # absolute: subclasses elsewhere still find it
    TITLE = "hermeslite"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel"),
        Binding("ctrl+c", "quit_twice", "Quit", priority=True),
    ]
    activity: reactive[str] = reactive("")

    def __init__(self, settings: Settings, *, cwd: Path | None = None, session_id: str | None = None,
                 llm: Any = None, store: Any = None, motion: bool = True, cwd_label: str | None = None,
                 tune_gc: bool = False, notices: tuple[str, ...] = (), notes: list[str] | None = None) -> None:
        super().__init__()
        self.notices = notices        # start-up warnings the user must see here: stderr is hidden
        self._opening_notes = list(notes or [])  # how the session was chosen: shown after its transcript
        self.cwd = Path(cwd or Path.cwd())
        self.cwd_label = cwd_label or short_path(self.cwd)
        self.motion = motion          # False: no spinners, no cursor blink (snapshots, screenshots)
        self.gc = GcPause(tune_gc)
        self.feed = EventFeed()
        self.host = AgentHost(settings, self.cwd, self.feed, session_id=session_id, llm=llm, store=store,
                              on_boot=self._booted)
        self._drawer: asyncio.Task | None = None
        self.first_frame_at: float | None = None
        self.litellm_at_first_frame: bool | None = None
        self._cancel_note = ""
        self._last_ctrl_c = 0.0
        self.approvals = Approvals()
        # Kept as attributes, not queried: `query_one` searches the *current* screen, and agent
        # events keep arriving while a modal (approval, /context) is on top.
        self.header_bar = HeaderBar(id="header")
        self.chat = ChatView(id="chat")
        self.warning_bar = WarningBar(id="warning")
        self.prompt = PromptInput(history.load(), id="prompt")
        self.meter = PressureMeter(id="meter")
        self.activity_label = Static("", id="activity", markup=False)

    # -- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self.header_bar
        yield self.chat
        yield self.warning_bar
        yield self.prompt
        with Horizontal(id="status"):
            yield self.meter
            yield self.activity_label
        yield Footer()

    async def on_mount(self) -> None:
        self.header_bar.model, self.header_bar.cwd = self.host.model_name, self.cwd_label
        self.prompt.completer = SlashComplete(self.prompt, commands.entries)
        await self.screen.mount(self.prompt.completer)
        self.prompt.cursor_blink = self.motion
        self.prompt.focus()
        await self.chat.add_note(WELCOME, kind="welcome")
        for notice in self.notices:
            await self.chat.add_note(f"⚠ {notice}", kind="warning")
        self._drawer = asyncio.create_task(self._draw_events(), name="hermeslite-draw")
        if self.gc.enabled:
            self.set_interval(0.5, lambda: self.gc.maybe_collect(time.monotonic() - self.prompt.last_key))
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """Only now start loading the model: the first frame never waits for litellm."""
        self.first_frame_at = time.perf_counter()
        self.litellm_at_first_frame = "litellm" in sys.modules
        try:
            self.host.start()
        except Exception as exc:  # noqa: BLE001 - e.g. a broken install; the next send tries again
            self.post_message(BootFailed(exc))
        self.header_bar.model = self.host.model_name
        self.run_worker(self._preload, thread=True, group="preload", exit_on_error=False)

    @staticmethod
    def _preload() -> None:
        """Import what the first reply needs (Markdown, ~35 ms) while the model loads, not mid-stream."""
        import hermeslite.tui.widgets.compaction_card  # noqa: F401
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
            self.notify(warning, severity="warning", markup=False)
        if unconfined := self.host.sandbox_warning():
            self.notify(unconfined, severity="warning", markup=False, timeout=10)

    @on(BootFailed)
    async def _on_boot_failed(self, message: BootFailed) -> None:
        await self.report_error(f"Could not start the model: {message.error}")

    async def show_agent(self, agent: Any, *, replay_transcript: bool) -> None:
        """Header, meter and (for a resumed session) the transcript of `agent`."""
        if replay_transcript:
            from .replay import replay

            await replay(self.chat, agent.messages)
        for note in self._opening_notes:
            await self.chat.add_note(note)
        for note in agent.notes:
            await self.chat.add_note(note, kind="warning")
        self._opening_notes = []
        self.header_bar.starting = False
        self.header_bar.model = agent.deps.llm.model
        self.refresh_header()
        self.show_pressure(agent.pressure())

    def refresh_header(self) -> None:
        agent = self.host.agent
        if agent is None:
            return
        try:
            info = agent.deps.store.get_session(agent.session_id)
        except StoreError:  # already reported by the save that failed; the title can wait
            return
        self.header_bar.session_title = (info.title if info else None) or "new session"

    def show_pressure(self, pressure: Any) -> None:
        self.meter.show(pressure)
        self.warning_bar.show(pressure)

    def watch_activity(self, activity: str) -> None:
        text = f"● {neutralize(activity)}" if activity else ""
        self.activity_label.update(text)

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast is neutralized: many repeat a provider's, a tool's or the model's words."""
        super().notify(neutralize(message), title=neutralize(title), severity=severity, timeout=timeout,
                       markup=markup)

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
        text = message.text
        history.append(text)
        if commands.is_command(text):
            self.run_slash(text)
        elif not self.refuse_if_busy():
            await self.chat.add_user(text)
            self._run_turn(text)

    def run_slash(self, text: str) -> None:
        """Run `/name args`; unknown names get a line with the closest match."""
        try:
            cmd, args = commands.parse(text)
        except commands.UnknownCommand as exc:
            self.notify(str(exc), severity="warning", markup=False)
            self.run_worker(self.chat.add_note(str(exc), kind="warning"), group="ui")
            return
        self.run_command(cmd, args)

    @work(group="command", exit_on_error=False)
    async def run_command(self, cmd: commands.SlashCommand, args: str) -> None:
        try:
            await cmd.run(self, args)
        except Exception as exc:  # noqa: BLE001 - one line on screen, never a traceback
            await self.report_error(f"{cmd.slash}: {exc}")

    @property
    def busy(self) -> bool:
        return any(w.group == "turn" and not w.is_finished for w in self.workers)

    def refuse_if_busy(self) -> bool:
        if self.busy:
            self.notify("A turn is running: wait for it, or press Esc to cancel it.", severity="warning")
        return self.busy

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def _run_turn(self, text: str) -> None:
        self.activity = "starting the model" if self.host.agent is None else "thinking"
        try:
            agent = await self.host.ready()
            self.activity = "thinking"
            await agent.run_turn(text)
        except asyncio.CancelledError:
            await self.chat.add_note("Cancelled before the model was ready; the message was not sent.",
                                     kind="cancelled")
            raise
        except Exception as exc:  # noqa: BLE001
            await self.report_error(exc)
        finally:
            self.activity = ""

    def start_compress(self, focus: str | None) -> None:
        if not self.refuse_if_busy():
            self._run_compress(focus)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def _run_compress(self, focus: str | None) -> None:
        self.activity = "compressing"
        try:
            agent = await self.host.ready()
            await agent.compress_now(focus)
        except asyncio.CancelledError:
            await self.chat.cancel_running()
            await self.chat.add_note("Cancelled: compression stopped; the transcript is unchanged.", kind="cancelled")
            raise
        except Exception as exc:  # noqa: BLE001
            await self.report_error(exc)
        finally:
            self.activity = ""

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_in_turn(self, job: Callable[[], Awaitable[None]], activity: str, cancelled: str) -> None:
        """Run `job` as the turn does: one at a time, shown as `activity`, Esc cancels it
        (then the note says `cancelled`)."""
        self.activity = activity
        try:
            await job()
        except asyncio.CancelledError:
            await self.chat.add_note(f"Cancelled: {cancelled}.", kind="cancelled")
            raise
        except Exception as exc:  # noqa: BLE001
            await self.report_error(exc)
        finally:
            self.activity = ""

    async def report_error(self, error: BaseException | str) -> None:
        """An error as a notification and one inline line; the details stay in the message text."""
        text = error if isinstance(error, str) else (str(error) or type(error).__name__)
        line = text.strip().splitlines()[0] if text.strip() else "unknown error"
        self.notify(line, severity="error", markup=False)
        if self.chat.is_attached:
            await self.chat.add_error(line)

    # -- views ----------------------------------------------------------------------------

    def show_view(self, title: str, body: str) -> None:
        self.push_screen(TextViewer(title, body))

    def get_system_commands(self, screen):  # the Ctrl+P palette
        yield from super().get_system_commands(screen)
        yield from commands.system_commands(self)

    def ask_approval(self, request: Any, answer: asyncio.Future) -> None:
        self.approvals.ask(self, request, answer)

    # -- keys ---------------------------------------------------------------------------

    def action_cancel_turn(self) -> None:
        if self.busy:
            self._cancel_note = self.chat.activity()
            self.workers.cancel_group(self, "turn")

    def take_cancel_note(self) -> str:
        note, self._cancel_note = self._cancel_note or "stopped the turn", ""
        return note

    def action_quit_twice(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW:
            self.exit(0)
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit (the session is saved).", timeout=QUIT_WINDOW)

    async def on_unmount(self) -> None:
        if self._drawer is not None:
            self._drawer.cancel()
        self.gc.restore()
        self.host.close()
