"""From agent events to widgets: one small handler per event type.

Kept out of app.py so the app stays a composition of widgets. Handlers run
on the app's message queue in the order the agent emitted the events, so a
reply's last fragment is always drawn before its turn is declared finished.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .surface import EventSurface


class EventRouter:
    def __init__(self, app: EventSurface) -> None:
        self.app = app
        self.chat = app.chat

    async def route(self, event: Any) -> None:
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler is not None:
            await handler(event)

    async def _on_TextDelta(self, event) -> None:
        self.app.activity = "streaming the reply"
        self.app.gc.start()
        await self.chat.append_text(event.text)

    async def _on_ReplyComplete(self, event) -> None:
        await self.chat.end_reply(event.content)
        self.app.gc.stop()
        self.app.activity = "thinking"

    async def _on_ToolStarted(self, event) -> None:
        self.app.activity = f"running {event.name}"
        await self.chat.tool_started(event.call_id, event.name, event.arguments, expanded=event.by_user)

    async def _on_ToolFinished(self, event) -> None:
        self.chat.tool_finished(event.call_id, event.content, event.is_error, event.exit_code)
        self.app.activity = "thinking"

    async def _on_PressureChanged(self, event) -> None:
        self.app.show_pressure(event.pressure)

    async def _on_CompactionStarted(self, event) -> None:
        self.app.activity = "compressing"
        await self.chat.compaction_started(event.trigger, event.focus, event.messages, event.tokens)

    async def _on_CompactionFinished(self, event) -> None:
        result = event.result
        await self.chat.compaction_finished(result, event.tokens_before, event.tokens_after, event.usage)
        severity = "warning" if result.aborted or result.fallback_used else "information"
        self.app.notify(event.headline, title=f"Compaction ({event.trigger})", severity=severity, markup=False)

    async def _on_Notice(self, event) -> None:
        severity = event.severity if event.severity in ("information", "warning", "error") else "information"
        self.app.notify(event.text, severity=severity, markup=False)
        await self.chat.add_note(event.text, kind=severity)

    async def _on_ErrorEvent(self, event) -> None:
        await self.app.report_error(event.text)

    async def _on_Retrying(self, event) -> None:
        self.app.activity_line.count_down(event.reason, event.attempt, event.max_retries, event.delay,
                                          then=self.app.activity)

    async def _on_TurnFinished(self, event) -> None:
        self.app.gc.stop()
        if event.cancelled:
            await self.chat.cancel_running()
            await self.chat.add_note(f"Cancelled: {self.app.take_cancel_note()}.", kind="cancelled")
        else:
            await self.chat.end_reply()
        self.app.activity = ""
        self.app.refresh_header()

    async def _on_ApprovalRequested(self, event) -> None:
        self.app.ask_approval(event.request, event.answer)

    async def _on_Settled(self, event) -> None:
        await self.app.send_queued()
