"""The message box: Enter sends, Shift+Enter or Ctrl+J adds a line, Up/Down walk the history.

Built on `TextArea` because messages are often pasted code. Keys are decided
here, before `TextArea` sees them: the slash and `@file` dropdowns get first
refusal, then Enter sends. Up and Down only recall history from the first or last
line, so moving the cursor inside a multi-line draft still works; Up on an
empty box first takes back the newest message queued during a turn. The box
keeps the focus while the user reads, so the keys that page through the
chat (PageUp/PageDown, Ctrl+Home/Ctrl+End) are passed on rather than moving
the cursor through a few lines of draft.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widgets import TextArea

if TYPE_CHECKING:
    from .mention_complete import MentionComplete
    from .slash_complete import SlashComplete

PLACEHOLDER = "Message hermeslite · / for commands · Shift+Enter or Ctrl+J for a new line"
NEWLINE_KEYS = ("shift+enter", "ctrl+j")
CHAT_KEYS = ("pageup", "pagedown", "ctrl+home", "ctrl+end")


class PromptInput(TextArea):
    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class ChatKey(Message):
        """A key meant for the conversation above (scrolling it), not for the draft."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, sent: list[str] | None = None, *, id: str | None = None) -> None:
        super().__init__(
            id=id, soft_wrap=True, tab_behavior="focus", placeholder=PLACEHOLDER, highlight_cursor_line=False
        )
        self.sent: list[str] = list(sent or [])
        self._position = len(self.sent)  # == len(history): editing the draft
        self._draft = ""
        self.completer: SlashComplete | None = None  # set by the app
        self.mentions: MentionComplete | None = None  # the @file dropdown, set by the app
        self.unqueue: Callable[[], str | None] | None = None  # takes back the newest queued message
        self.last_key = 0.0  # monotonic time of the last key press (idle detection)

    def on_key(self, event: events.Key) -> None:
        """Runs before TextArea's own key handling, which `prevent_default` skips for keys used here."""
        self.last_key = time.monotonic()
        if self._handled(event.key):
            event.stop()
            event.prevent_default()

    def _handled(self, key: str) -> bool:
        completer = self.completer
        if completer is not None and completer.take_key(key):
            if key == "enter" and not self.text.endswith(" "):
                self.submit()  # a command without arguments runs at once
            return True
        if self.mentions is not None and self.mentions.take_key(key):
            return True  # Enter on a file completes it: the message is sent by the next Enter
        if key == "enter":
            self.submit()
            return True
        if key in NEWLINE_KEYS:
            self.insert("\n")
            return True
        if key in CHAT_KEYS:
            self.post_message(self.ChatKey(key))
            return True
        row = self.cursor_location[0]
        if key == "up" and not self.text and self.unqueue is not None and (queued := self.unqueue()) is not None:
            self.text = queued
            self.move_cursor(self.document.end)
            return True
        if key == "up" and row == 0:
            return self._recall(-1)
        if key == "down" and row == self.document.line_count - 1:
            return self._recall(+1)
        return False

    def submit(self) -> None:
        """Send the text (unless blank), remember it, and clear the box."""
        text = self.text.strip()
        if not text:
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._position = len(self.sent)
        self._draft = ""
        self.clear()
        self.post_message(self.Submitted(text))

    def _recall(self, step: int) -> bool:
        """Move through history; the unsent draft is kept and comes back at the end."""
        target = self._position + step
        if target < 0 or target > len(self.sent) or not self.sent:
            return False
        if self._position == len(self.sent):
            self._draft = self.text
        self._position = target
        self.text = self._draft if target == len(self.sent) else self.sent[target]
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document[last])))
        return True
