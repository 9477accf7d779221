"""The lines of a conversation: the user's messages, the assistant's replies, notes and errors.

Assistant replies are `Markdown` fed through a `MarkdownStream`, which batches
fragments that arrive faster than the widget can re-parse: appending a token
at a time would re-render the whole message per token and fall behind a fast
model. Markdown is imported when the first reply arrives, not at start-up.
All model and user text is shown without markup parsing, so a reply
containing `[bold]` or `[/]` cannot break the screen, and with its control
characters made visible (`neutralize`), so it cannot command the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from hermeslite.display import neutralize, plural

from .frozen_markdown import FrozenMarkdown, freeze, thaw

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from .paced_stream import PacedStream


FOLD_LINES = 12  # a longer message (a paste) shows its first lines and a line to open the rest
HEAD_LINES = 6


class UserMessage(Static):
    """What the user sent, styled apart from the replies. A pasted log or file is folded to its first
    lines, so it does not push the conversation off the screen; a click opens or folds it. The
    whole text was sent either way."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = neutralize(text).split("\n")
        self.expanded = False
        super().__init__(self.shown(), markup=False)

    @property
    def folds(self) -> bool:
        return len(self.lines) > FOLD_LINES

    def shown(self) -> Content:
        if not self.folds:
            return Content("\n".join(self.lines))
        if self.expanded:
            return Content.assemble("\n".join(self.lines), "\n", ("(click to fold)", "dim"))
        more = plural(len(self.lines) - HEAD_LINES, "more line")
        return Content.assemble("\n".join(self.lines[:HEAD_LINES]), "\n", (f"… {more} (click to show all)", "dim"))

    def on_click(self) -> None:
        if self.folds:
            self.expanded = not self.expanded
            self.update(self.shown())


SEGMENT_CHARS = 1_500  # a long reply is split into Markdown widgets of about this size
FREEZE_ATTEMPTS = 10


def split_point(current: str, fragment: str) -> int | None:
    """Where in `fragment` a new segment may begin: just after a blank line, outside code fences."""
    tail = current[-1:]
    found = (tail + fragment).rfind("\n\n")
    if found < 0:
        return None
    cut = found + 2 - len(tail)
    head = current + fragment[:cut]
    fences = sum(1 for line in head.splitlines() if line.lstrip().startswith(("```", "~~~")))
    return cut if fences % 2 == 0 else None


def segments(text: str) -> list[str]:
    """`text` cut into pieces of at least SEGMENT_CHARS at safe boundaries (for complete replies)."""
    paragraphs = text.split("\n\n")
    pieces, current = [], ""
    for i, paragraph in enumerate(paragraphs):
        last = i == len(paragraphs) - 1
        current += paragraph if last else paragraph + "\n\n"
        if not last and len(current) >= SEGMENT_CHARS and split_point("", current) == len(current):
            pieces.append(current)
            current = ""
    if current or not pieces:
        pieces.append(current)
    return pieces


class AssistantMessage(Vertical):
    """One assistant reply; stream into it with `write`, then `finish`.

    A reply is a column of `Markdown` segments rather than one widget: Textual
    lays out every block of a Markdown widget again whenever it grows, so one
    10,000-token reply would make each frame slower than the last. Only the
    last segment is live; finished ones are frozen (see frozen_markdown.py).
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._initial = segments(neutralize(text)) if text else []
        self._current: Markdown | None = None
        self._current_text = ""
        self._stream: PacedStream | None = None
        self._done: list[str] = []
        self.streamed_chars = 0

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        for piece in self._initial:
            self._done.append(piece)
            yield Markdown(piece)

    def on_mount(self) -> None:
        if self._initial:
            self.call_after_refresh(self._freeze_all)

    def _freeze_all(self) -> None:
        from textual.widgets import Markdown

        for markdown in list(self.query_children(Markdown)):
            self._freeze_soon(markdown)

    def _freeze_soon(self, markdown: Markdown, attempt: int = 0) -> None:
        """Freeze a finished segment once it has been laid out at its final size (retried for a
        while: right after it finishes it may not have been laid out yet)."""

        async def later() -> None:
            if markdown is self._current or not markdown.is_attached:
                return
            if await freeze(markdown) is None and attempt < FREEZE_ATTEMPTS:
                self.set_timer(0.05 * (attempt + 1), lambda: self._freeze_soon(markdown, attempt + 1))

        self.call_after_refresh(later)

    async def on_frozen_markdown_thaw(self, message: FrozenMarkdown.Thaw) -> None:
        message.stop()
        live = await thaw(message.frozen)
        self._freeze_soon(live)

    @property
    def source(self) -> str:
        return "".join(self._done) + self._current_text

    @property
    def streaming(self) -> bool:
        return self._stream is not None

    async def write(self, fragment: str) -> None:
        """Queue a fragment; the stream renders pending fragments in one go when it can."""
        fragment = neutralize(fragment)
        self.streamed_chars += len(fragment)
        if len(self._current_text) >= SEGMENT_CHARS:
            cut = split_point(self._current_text, fragment)
            if cut is not None:
                await self._append(fragment[:cut])
                await self.finish()
                fragment = fragment[cut:]
        await self._append(fragment)

    async def _append(self, fragment: str) -> None:
        if not fragment:
            return
        if self._stream is None:
            from textual.widgets import Markdown

            from .paced_stream import PacedStream

            self._current = Markdown()
            await self.mount(self._current)
            self._stream = PacedStream(self._current)
        self._current_text += fragment
        await self._stream.write(fragment)

    async def caught_up(self) -> None:
        """Wait until everything written so far has been drawn."""
        if self._stream is not None:
            await self._stream.caught_up()

    async def finish(self) -> None:
        """Flush what is pending, stop the background renderer and close the segment.

        Always called, on cancel too; a later `write` starts a new segment.
        """
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.caught_up()
            await stream.stop()
        if self._current_text:
            self._done.append(self._current_text)
        if self._current is not None:
            self._freeze_soon(self._current)
        self._current, self._current_text = None, ""


class NoteLine(Static):
    """A one-line remark from hermeslite itself: a cancellation, a notice, a command's answer."""

    def __init__(self, text: str, *, classes: str = "") -> None:
        super().__init__(Content(neutralize(text)), markup=False, classes=classes)
        self.text = text


class ErrorLine(NoteLine):
    """An error, as one readable line: never a traceback."""

    def __init__(self, text: str) -> None:
        first = text.strip().splitlines()[0] if text.strip() else "unknown error"
        super().__init__(f"✗ {first}")
