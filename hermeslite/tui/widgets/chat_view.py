"""The conversation: one widget per message in a scroller pinned to the bottom.

The scroller is anchored, so it follows a streaming reply until the user
scrolls up, and picks up again when they scroll back down. While they are
scrolled up, anything new sets `unseen`, which the app shows as a "new
messages below" line; reaching the bottom (or `jump_to_end`) clears it. This
widget owns "what is in progress right now" (the reply being streamed, tools
running, a compaction), which is also what Esc reports as cancelled.

Neither the scroller nor anything in it takes the keyboard focus: the input
keeps it, so a click on a tool panel or a card (which toggles it) never
leaves the user typing into nothing. Keys that scroll reach it from the input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Collapsible

from .message import AssistantMessage, ErrorLine, NoteLine, UserMessage
from .tool_panel import ToolPanel

if TYPE_CHECKING:
    from hermeslite.tools.edit_diff import EditDiff

    from .compaction_card import CompactionCard


class ChatView(VerticalScroll, can_focus=False):
    unseen: reactive[bool] = reactive(False)  # something was added below while scrolled up

    def __init__(self, *, id: str | None = None, motion: bool = True) -> None:
        super().__init__(id=id)
        self.motion = motion  # False: tool panels and compaction cards do not spin
        self.reply: AssistantMessage | None = None
        self.tools: dict[str, ToolPanel] = {}
        self.card: CompactionCard | None = None  # the one in progress
        self.awaiting_approval = False  # the running tools wait on the approval dialog: none has started
        self.following = True  # at the bottom when the content last grew

    def on_mount(self) -> None:
        self.anchor()
        # The anchor moves the view without telling watchers, so these fire only for the user's
        # own scrolling and for growth: exactly the two things that decide `unseen`.
        self.watch(self, "scroll_y", self._scrolled, init=False)
        self.watch(self, "virtual_size", self._grew, init=False)

    def _scrolled(self) -> None:
        self.following = self.scroll_y >= self.max_scroll_y
        if self.following:
            self.unseen = False

    def _grew(self) -> None:
        if not self.following and self.scroll_y < self.max_scroll_y:
            self.unseen = True

    def jump_to_end(self) -> None:
        """Back to the newest message, following new output again."""
        self.following, self.unseen = True, False
        self.scroll_end(animate=False, immediate=True)

    async def _add(self, widget: Widget) -> Widget:
        await self.mount(widget)
        return widget

    # -- messages --------------------------------------------------------------

    async def add_user(self, text: str) -> None:
        await self._add(UserMessage(text))

    async def add_note(self, text: str, kind: str = "note") -> None:
        await self._add(NoteLine(text, classes=f"note -{kind}"))

    async def add_error(self, text: str) -> None:
        await self._add(ErrorLine(text))

    async def add_assistant(self, text: str) -> None:
        """A complete reply (restored sessions, or a model that did not stream)."""
        if text.strip():
            await self._add(AssistantMessage(text))

    async def append_text(self, text: str) -> None:
        """Stream a fragment into the current reply, starting one if needed."""
        if self.reply is None:
            self.reply = AssistantMessage()
            await self._add(self.reply)
        await self.reply.write(text)
        await self.reply.caught_up()  # back-pressure: the next slice waits for this one

    async def end_reply(self, content: str | None = None) -> None:
        """Close the streamed reply; show `content` when nothing was streamed for it."""
        reply, self.reply = self.reply, None
        if reply is not None:
            await reply.finish()
        elif content:
            await self.add_assistant(content)

    # -- tools and compaction ----------------------------------------------------

    async def tool_started(self, call_id: str, name: str, arguments: str, *, expanded: bool = False) -> None:
        await self.end_reply()
        panel = ToolPanel(call_id, name, arguments, collapsed=not expanded, motion=self.motion)
        self.tools[call_id] = panel
        await self._add(panel)

    def tool_finished(
        self, call_id: str, content: str, is_error: bool, exit_code: int | None, diff: EditDiff | None = None
    ) -> None:
        panel = self.tools.pop(call_id, None)
        if panel is not None:
            panel.finish(content, is_error, exit_code, diff)

    async def compaction_started(self, trigger: str, focus: str | None, messages: int, tokens: int) -> None:
        from .compaction_card import CompactionCard  # Markdown inside: not needed for the first frame

        await self.end_reply()
        self.card = CompactionCard(trigger, focus, messages, tokens, motion=self.motion)
        await self._add(self.card)

    async def compaction_finished(self, result, tokens_before: int, tokens_after: int, usage=None) -> None:
        card, self.card = self.card, None
        if card is not None:
            await card.finish(result, tokens_before, tokens_after, usage)

    # -- cancellation --------------------------------------------------------------

    def activity(self) -> str:
        """What is running now, in words, for the "Cancelled: ..." line."""
        if self.tools:
            names = ", ".join(f"{p.tool_name} `{p.argument}`" for p in self.tools.values())
            return f"stopped {names} " + ("before it ran" if self.awaiting_approval else "(process killed)")
        if self.card is not None:
            return "stopped the compaction; the transcript is unchanged"
        if self.reply is not None:
            return f"stopped the reply after {self.reply.streamed_chars} characters (partial reply kept)"
        return "stopped waiting for the model"

    async def cancel_running(self) -> None:
        """Mark everything in progress as cancelled; the agent already repaired the transcript."""
        await self.end_reply()
        for panel in self.tools.values():
            panel.cancel(ran=not self.awaiting_approval)
        self.tools.clear()
        self.awaiting_approval = False
        if self.card is not None:
            self.card.cancel()
            self.card = None

    async def clear(self) -> None:
        await self.end_reply()
        self.tools.clear()
        self.card = None
        await self.remove_children()
        self.jump_to_end()

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        """An opened panel or card is shown from its first line: following the end would scroll
        a long checkpoint's beginning out of sight."""
        item = next(
            (
                node
                for node in event.collapsible.ancestors_with_self
                if isinstance(node, Widget) and node.parent is self
            ),
            None,
        )
        if item is None:
            return

        def reveal() -> None:
            top, bottom = item.virtual_region.y, item.virtual_region.bottom
            if top < self.scroll_y or bottom > self.scroll_y + self.scrollable_content_region.height:
                self.release_anchor()  # else the next layout puts the view back at the end
                self.scroll_to(y=top, animate=False, immediate=True)

        self.call_after_refresh(reveal)

    def toggle_latest(self) -> None:
        """Expand or collapse the newest tool panel or compaction card (Ctrl+O)."""
        found = self.query(Collapsible)
        if found:
            latest = found.last()
            latest.collapsed = not latest.collapsed
