"""Asking before a risky command or file access: allow once, for this session, or deny.

The agent waits on a future; this screen resolves it. The dialog shows what
would run, why it needs approval, and what "allow for this session" covers:
the request's scope, such as commands flagged for the same reason (which
names the path) or file writes in one directory. An allowed scope is not asked
about again until the app exits. If the turn is cancelled meanwhile (Esc,
quit) the future is cancelled and the screen closes itself, so a stale
question never lingers over the chat. `n` denies and lets the model go on
(it is told the user said no); Esc denies and stops the turn, for when the
model is heading the wrong way and should wait for the user.

The dialog can open while the user is typing a follow-up (the queue invites
that), and a word like "yes" or "as" would answer it unread. So a key counts
as an answer only after a pause: one that comes within TYPING_GAP of the key
before it (in the input or here), or of the dialog opening, is taken as typing,
swallowed, and the dialog says to press y, a or n.

An edit asked about under `tools.edits: ask` carries its diff: the dialog
widens and shows it coloured in a box of its own that scrolls (arrow keys,
PgUp/PgDn), above the buttons, so a long diff never pushes them off screen.
"Allow for this session" then allows every edit for the rest of the session.
"""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from hermeslite.display import neutralize

from ..diff_text import diff_content

ONCE, SESSION, DENY, STOP = "once", "session", "deny", "stop"
TYPING_GAP = 0.5  # seconds: keys closer together than this are typing, not an answer
TYPED_NOTE = "Keys typed while this opened were ignored: press y, a or n (Esc denies and stops the turn)."
SCROLLS = {"up": (0, -1), "down": (0, 1), "pageup": (0, -10), "pagedown": (0, 10), "left": (-8, 0), "right": (8, 0)}


class ApprovalScreen(ModalScreen[str]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "choose('once')", "Allow once"),
        Binding("a", "choose('session')", "Allow for session"),
        Binding("n", "choose('deny')", "Deny"),
        Binding("escape", "choose('stop')", "Deny and stop the turn"),
        *(Binding(key, f"scroll_diff({dx}, {dy})", show=False) for key, (dx, dy) in SCROLLS.items()),
    ]

    def __init__(self, request, answer: asyncio.Future | None = None, *, last_typed: float = 0.0) -> None:
        super().__init__()
        self.request = request
        self.answer = answer
        self.last_key = last_typed  # monotonic time of the user's last key, in the input or here

    def compose(self) -> ComposeResult:
        diff = self.request.diff
        with Vertical(id="approval", classes="-diff" if diff is not None else ""):
            yield Static(f"⚠ This {self.request.tool} call needs your approval", id="approval-title")
            yield Static(Content(neutralize(self.request.command)), id="approval-command")
            yield Static(Content(neutralize(f"Why: {self.request.reason}.")), id="approval-reason")
            if diff is not None:
                with ScrollableContainer(id="approval-diff"):
                    body = Static(diff_content(diff.text) if diff.text else diff.summary(), id="approval-diff-text")
                    body.styles.width = max((Content(line).cell_length for line in diff.lines), default=1)
                    yield body
            yield Static(Content(neutralize(f"For this session covers: {self.request.scope}.")), id="approval-scope")
            yield Static(TYPED_NOTE, id="approval-typed")
            with Horizontal(id="approval-buttons"):
                yield Button("Allow once (y)", id=ONCE, variant="warning")
                label = "Allow edits for this session (a)" if diff is not None else "Allow for this session (a)"
                yield Button(label, id=SESSION)
                yield Button("Deny (n)", id=DENY, variant="error")

    def on_mount(self) -> None:
        self.last_key = max(self.last_key, time.monotonic())
        self.query_one("#approval-typed").display = False
        self.query_one(f"#{DENY}", Button).focus()  # the safe choice is the default
        self._fit_diff()
        if self.answer is not None:
            self.answer.add_done_callback(lambda _f: self._gone())

    def on_key(self, event: events.Key) -> None:
        """Swallow a key that follows another too closely (before any binding or button sees it);
        Esc always counts: it denies, which is safe."""
        if event.key in SCROLLS:
            return  # scrolling the diff answers nothing
        now = time.monotonic()
        typing, self.last_key = now - self.last_key < TYPING_GAP, now
        if typing and event.key != "escape":
            event.stop()
            event.prevent_default()
            self.query_one("#approval-typed").display = True

    def on_resize(self) -> None:
        self._fit_diff()

    def _fit_diff(self) -> None:
        """Give the diff the rows the rest of the dialog leaves on screen, measured with the diff at
        its smallest (the title and reason wrap differently at each width)."""
        if self.request.diff is None:
            return
        box = self.query_one("#approval-diff")
        box.styles.max_height = 3

        def fit() -> None:
            others = self.query_one("#approval").outer_size.height - box.outer_size.height
            box.styles.max_height = max(3, self.size.height - others - 1)

        self.call_after_refresh(fit)

    def action_scroll_diff(self, dx: int, dy: int) -> None:
        """Arrow keys and PgUp/PgDn scroll the diff while the focus stays on the buttons."""
        if self.request.diff is not None:
            self.query_one("#approval-diff").scroll_relative(dx, dy, animate=False)

    def _gone(self) -> None:
        """The agent stopped waiting (turn cancelled): close without an answer."""
        if self.is_attached and self.app.screen is self:
            self.dismiss(DENY)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose(event.button.id or DENY)

    def action_choose(self, choice: str) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss(choice)


class Approvals:
    """Which scopes this session already allowed, and asking about the rest."""

    def __init__(self) -> None:
        self.allowed_scopes: set[str] = set()

    def ask(self, app, request, answer: asyncio.Future) -> None:
        """Resolve `answer` at once if its scope was allowed for the session, else open the modal."""
        if request.scope in self.allowed_scopes:
            if not answer.done():
                answer.set_result(True)
            return
        previous = app.activity
        app.activity = "waiting for approval"
        app.chat.awaiting_approval = True

        def decided(choice: str | None) -> None:
            app.activity = previous
            if choice == SESSION:
                self.allowed_scopes.add(request.scope)
            if choice == STOP and not answer.done():
                app.run_worker(app.chat.add_note(f"Denied: {request.command}"), group="ui")
                app.stop_turn()  # cancels the wait too: the call is closed as cancelled, not run
                return
            app.chat.awaiting_approval = False
            if not answer.done():
                answer.set_result(choice in (ONCE, SESSION))
                verb = "Denied" if choice in (DENY, None) else "Allowed"
                app.run_worker(app.chat.add_note(f"{verb}: {request.command}"), group="ui")

        app.push_screen(ApprovalScreen(request, answer, last_typed=app.prompt.last_key), decided)
