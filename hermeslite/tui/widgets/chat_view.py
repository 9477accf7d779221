"""The conversation: one widget per message in a scroller pinned to the bottom.

The scroller is anchored, so it follows a streaming reply until the user
scrolls up, and picks up again when they scroll back down. This widget owns
"what is in progress right now" (the reply being streamed, tools running, a
compaction), which is also what Esc reports as cancelled.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from .message import AssistantMessage, ErrorLine, NoteLine, UserMessage
from .tool_panel import ToolPanel


class ChatView(VerticalScroll):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.reply: AssistantMessage | None = None
        self.tools: dict[str, ToolPanel] = {}
        self.card = None                 # the CompactionCard in progress

    def on_mount(self) -> None:
        self.anchor()

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
        await self.reply.caught_up()    # back-pressure: the next slice waits for this one

    async def end_reply(self, content: str | None = None) -> None:
        """Close the streamed reply; show `content` when nothing was streamed for it."""
        reply, self.reply = self.reply, None
        if reply is not None:
            await reply.finish()
        elif content:
            await self.add_assistant(content)

    # -- tools and compaction ----------------------------------------------------

    async def tool_started(self, call_id: str, name: str, arguments: str) -> None:
        await self.end_reply()
        panel = ToolPanel(call_id, name, arguments)
        self.tools[call_id] = panel
        await self._add(panel)

    def tool_finished(self, call_id: str, content: str, is_error: bool) -> None:
        panel = self.tools.pop(call_id, None)
        if panel is not None:
            panel.finish(content, is_error)

    async def compaction_started(self, trigger: str, focus: str | None, messages: int, tokens: int) -> None:
        from .compaction_card import CompactionCard   # Markdown inside: not needed for the first frame

        await self.end_reply()
        self.card = CompactionCard(trigger, focus, messages, tokens)
        await self._add(self.card)

    async def compaction_finished(self, result, usage=None) -> None:
        card, self.card = self.card, None
        if card is not None:
            await card.finish(result, usage)

    # -- cancellation --------------------------------------------------------------

    def activity(self) -> str:
        """What is running now, in words, for the "Cancelled: ..." line."""
        if self.tools:
            names = ", ".join(f"{p.tool_name} `{p.argument}`" for p in self.tools.values())
            return f"stopped {names} (process killed)"
        if self.card is not None:
            return "stopped the compaction; the transcript is unchanged"
        if self.reply is not None:
            return f"stopped the reply after {self.reply.streamed_chars} characters (partial reply kept)"
        return "stopped waiting for the model"

    async def cancel_running(self) -> None:
        """Mark everything in progress as cancelled; the agent already repaired the transcript."""
        await self.end_reply()
        for panel in self.tools.values():
            panel.cancel()
        self.tools.clear()
        if self.card is not None:
            self.card.cancel()
            self.card = None

    async def clear(self) -> None:
        await self.end_reply()
        self.tools.clear()
        self.card = None
        await self.remove_children()
