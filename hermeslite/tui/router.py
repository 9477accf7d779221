"""From agent events to widgets: one small handler per event type.

Kept out of app.py so the app stays a composition of widgets. Handlers run
on the app's message queue in the order the agent emitted the events, so a
reply's last fragment is always drawn before its turn is declared finished.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from hermeslite.agent import events as ev

from .feed import Drawn, Settled

if TYPE_CHECKING:
    from .surface import EventSurface


class EventRouter:
    def __init__(self, app: EventSurface) -> None:
        self.app = app
        self.chat = app.chat
        self._reply = ""  # the turn's last reply without tool calls: in plan mode, the plan
        # Every event class, by class: a renamed or new event fails here or in the test, never silently.
        self.handlers: dict[type[Drawn], Callable[[Any], Awaitable[None]]] = {
            ev.TextDelta: self._on_TextDelta,
            ev.ReplyComplete: self._on_ReplyComplete,
            ev.ToolStarted: self._on_ToolStarted,
            ev.ToolFinished: self._on_ToolFinished,
            ev.PressureChanged: self._on_PressureChanged,
            ev.CompactionStarted: self._on_CompactionStarted,
            ev.CompactionFinished: self._on_CompactionFinished,
            ev.Notice: self._on_Notice,
            ev.ErrorEvent: self._on_ErrorEvent,
            ev.Retrying: self._on_Retrying,
            ev.TurnFinished: self._on_TurnFinished,
            ev.ApprovalRequested: self._on_ApprovalRequested,
            ev.ModeChanged: self._on_ModeChanged,
            ev.TodosChanged: self._on_TodosChanged,
            Settled: self._on_Settled,
        }

    async def route(self, event: Drawn) -> None:
        await self.handlers[type(event)](event)

    async def _on_TextDelta(self, event: ev.TextDelta) -> None:
        self.app.activity = "streaming the reply"
        self.app.gc.start()
        await self.chat.append_text(event.text)

    async def _on_ReplyComplete(self, event: ev.ReplyComplete) -> None:
        self._reply = "" if event.tool_calls else event.content
        await self.chat.end_reply(event.content)
        self.app.gc.stop()
        self.app.activity = "thinking"

    async def _on_ToolStarted(self, event: ev.ToolStarted) -> None:
        self.app.activity = f"running {event.name}"
        await self.chat.tool_started(event.call_id, event.name, event.arguments, expanded=event.by_user)

    async def _on_ToolFinished(self, event: ev.ToolFinished) -> None:
        self.chat.tool_finished(event.call_id, event.content, event.is_error, event.exit_code, event.diff)
        self.app.activity = "thinking"

    async def _on_PressureChanged(self, event: ev.PressureChanged) -> None:
        self.app.show_pressure(event.pressure)

    async def _on_CompactionStarted(self, event: ev.CompactionStarted) -> None:
        self.app.activity = "compressing"
        await self.chat.compaction_started(event.trigger, event.focus, event.messages, event.tokens)

    async def _on_CompactionFinished(self, event: ev.CompactionFinished) -> None:
        result = event.result
        await self.chat.compaction_finished(result, event.tokens_before, event.tokens_after, event.usage)
        self.app.refresh_header()  # the compaction's own requests count in the status bar's cost
        severity = "warning" if result.aborted or result.fallback_used else "information"
        self.app.notify(event.headline, title=f"Compaction ({event.trigger})", severity=severity, markup=False)

    async def _on_Notice(self, event: ev.Notice) -> None:
        """Where the agent's notices go: one place each, so none is said twice in view.

        Every kind the agent emits (a file attached or skipped, a hook's message or refusal, a
        compaction refused, a session saved again) tells what happened to this conversation, so it
        is a line in the chat, the record the user scrolls back through and sees again on /resume's
        transcript. A toast is raised only when that line is out of sight (the chat scrolled up, a
        dialog open), as a pointer to it, never over it. What is only passing status (a retry's
        countdown, what the agent is doing) is no Notice: the activity line under the chat shows it.
        """
        severity = event.severity if event.severity in ("information", "warning", "error") else "information"
        self.app.toast_unless_seen(event.text, severity=severity)
        await self.chat.add_note(event.text, kind=severity)

    async def _on_ErrorEvent(self, event: ev.ErrorEvent) -> None:
        await self.app.report_error(event.text)

    async def _on_Retrying(self, event: ev.Retrying) -> None:
        self.app.activity_line.count_down(
            event.reason, event.attempt, event.max_retries, event.delay, then=self.app.activity
        )

    async def _on_TurnFinished(self, event: ev.TurnFinished) -> None:
        self.app.gc.stop()
        if event.cancelled:
            await self.chat.cancel_running()
            await self.chat.add_note(f"Cancelled: {self.app.take_cancel_note()}.", kind="cancelled")
        else:
            await self.chat.end_reply()
        self.app.activity = ""
        self.app.refresh_header()
        plan, self._reply = self._reply, ""
        if event.ok and plan.strip() and self.app.mode_badge.mode == "plan" and not self.app.queued.items:
            self.app.offer_plan(plan)

    async def _on_ApprovalRequested(self, event: ev.ApprovalRequested) -> None:
        self.app.ask_approval(event.request, event.answer)

    async def _on_ModeChanged(self, event: ev.ModeChanged) -> None:
        self.app.show_mode(event.mode)

    async def _on_TodosChanged(self, event: ev.TodosChanged) -> None:
        self.app.todo_pane.show_items(event.items)

    async def _on_Settled(self, event: Settled) -> None:
        await self.app.turns.send_queued()
