"""`-p --output-format json|stream-json`: the run as JSON on stdout, for scripts and CI wrappers.

The agent's events become Claude Code's stream-json messages where the meaning is
the same (`system`/`init`, `assistant`, `user` with tool results, `stream_event`
deltas, a final `result`), so wrappers written for it read ours; what it has no
name for (compactions, refusals, notices) are `system` messages with our own
subtypes. docs/output-format.md is the schema. stdout carries JSON only: one
object at the end (`json`), or one a line as things happen (`stream-json`);
everything for a person stays on stderr.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from hermeslite.agent import events as ev
from hermeslite.context.pressure import Pressure, PressureLevel
from hermeslite.errors import Unexpected, UsageError, UserFacingError
from hermeslite.headless import HeadlessPrinter, pressure_warning
from hermeslite.store.usage import UsageTotals

if TYPE_CHECKING:
    from hermeslite.agent.loop import Agent

_C1 = re.compile("[\u0080-\u009f\u2028\u2029]")  # JSON allows them raw; a terminal may act on C1 codes


@dataclass(frozen=True)
class OutputChoice:
    """What --output-format and --include-partial asked for."""

    format: str = "text"
    include_partial: bool = False

    @property
    def structured(self) -> bool:
        return self.format != "text"


def encode(obj: dict[str, Any]) -> str:
    """One line of JSON: control characters escaped, so no value can move the cursor of a terminal."""
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(obj, ensure_ascii=False))


def usage_fields(usage: UsageTotals) -> dict[str, int]:
    """Claude Code's usage names; `input_tokens` is the uncached input, as Anthropic bills it."""
    return {
        "input_tokens": max(usage.prompt_tokens - usage.cache_read_tokens - usage.cache_write_tokens, 0),
        "cache_read_input_tokens": usage.cache_read_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
        "output_tokens": usage.completion_tokens,
    }


def cost_of(usage: UsageTotals) -> float | None:
    """USD, None when a request that is not the (free) local model had no price."""
    if usage.unpriced > usage.local:
        return None
    return round(usage.cost, 6)


@dataclass
class RunRecord:
    """What the final `result` object reports, gathered from the events as they pass."""

    reply: str = ""  # the last assistant message's text
    turns: int = 0  # model replies in this run
    compactions: list[dict[str, Any]] = field(default_factory=list)
    denials: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    finished: ev.TurnFinished | None = None


class JsonPrinter:
    """An event subscriber that writes JSON to stdout. The lines for a person (start-up notes,
    --verbose, errors, notices, the pressure warning) go through a text printer whose two streams
    are both stderr, so nothing of it can reach stdout."""

    def __init__(self, out: TextIO, err: TextIO, choice: OutputChoice) -> None:
        self.out, self.choice = out, choice
        self.notes = HeadlessPrinter(err, err)
        self.record = RunRecord()
        self.session_id: str | None = None
        self._started = time.monotonic()
        self._start_usage = UsageTotals()
        self._calls: dict[str, tuple[str, str]] = {}  # call id -> (tool name, arguments)
        self._in_message = False
        self._done = False
        self._gone = False
        self._level = PressureLevel.NORMAL
        self.handlers: dict[type[ev.Event], Callable[[Any], None]] = {
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
            ev.ApprovalRequested: _ignore,  # a headless agent asks none: refusals arrive as results
            ev.ModeChanged: _ignore,
            ev.TodosChanged: _ignore,
        }

    def __call__(self, event: ev.Event) -> None:
        self.handlers[type(event)](event)

    @property
    def reader_gone(self) -> bool:
        return self._gone or bool(self.notes.gone)

    @property
    def streaming(self) -> bool:
        return self.choice.format == "stream-json"

    def startup(self, notes: list[str]) -> None:
        self.notes.startup(notes)

    def session_summary(self, usage: UsageTotals, pressure: Pressure) -> None:
        self.notes.session_summary(usage, pressure)

    def _emit(self, obj: dict[str, Any]) -> None:
        if self.session_id is not None:
            obj.setdefault("session_id", self.session_id)
        if self._gone:
            return
        try:
            self.out.write(encode(obj) + "\n")
            self.out.flush()
        except BrokenPipeError:  # as in text mode: the turn goes on and is saved, then exit 141
            self._gone = True

    def _system(self, subtype: str, **fields: Any) -> None:
        if self.streaming:
            self._emit({"type": "system", "subtype": subtype, **fields})

    def begin(self, agent: Agent, servers: list[dict[str, str]]) -> None:
        """The `init` message, once the agent is built: what this run works with."""
        self.session_id = agent.session_id
        self._start_usage = agent.session_usage()
        self._started = time.monotonic()
        tools = [schema["function"]["name"] for schema in agent.tool_schemas()]
        self._system(
            "init", model=agent.model_name, tools=tools, mcp_servers=servers, permissionMode=agent.mode, mode=agent.mode
        )

    def _on_TextDelta(self, event: ev.TextDelta) -> None:
        if not (self.streaming and self.choice.include_partial) or not event.text:
            return
        if not self._in_message:
            self._emit({"type": "stream_event", "event": {"type": "message_start"}})
            self._in_message = True
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": event.text}}
        self._emit({"type": "stream_event", "event": delta})

    def _on_ReplyComplete(self, event: ev.ReplyComplete) -> None:
        self.record.turns += 1
        self.record.reply = event.content
        if self._in_message:
            self._emit({"type": "stream_event", "event": {"type": "message_stop"}})
            self._in_message = False
        content: list[dict[str, Any]] = [{"type": "text", "text": event.content}] if event.content else []
        content += [_tool_use(call) for call in event.tool_calls]
        if self.streaming:
            self._emit({"type": "assistant", "message": {"role": "assistant", "content": content}})

    def _on_ToolStarted(self, event: ev.ToolStarted) -> None:
        self._calls[event.call_id] = (event.name, event.arguments)

    def _on_ToolFinished(self, event: ev.ToolFinished) -> None:
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": event.call_id, "content": event.content}
        result |= {"is_error": event.is_error, "exit_code": event.exit_code}
        if event.diff is not None:  # what an edit changed (a refused one: would have changed)
            diff = event.diff
            result["diff"] = {"path": diff.path, "added": diff.added, "removed": diff.removed, "text": diff.text}
            result["diff"] |= {"created": diff.created, "note": diff.note}
        if self.streaming:
            self._emit({"type": "user", "message": {"role": "user", "content": [result]}})
        if event.refused:
            name, arguments = self._calls.get(event.call_id, (event.name, "{}"))
            denial = {"tool_name": name, "tool_use_id": event.call_id, "tool_input": _arguments(arguments)}
            self.record.denials.append(denial)
            self._system("permission_denied", **denial, reason=event.content)

    def _on_CompactionStarted(self, event: ev.CompactionStarted) -> None:
        self._system(
            "compact_start", trigger=event.trigger, focus=event.focus, messages=event.messages, pre_tokens=event.tokens
        )

    def _on_CompactionFinished(self, event: ev.CompactionFinished) -> None:
        result = event.result
        metadata = {
            "trigger": event.trigger,
            "pre_tokens": event.tokens_before,  # Claude Code's name; tokens_before is the issue's
            "post_tokens": event.tokens_after,
            "tokens_before": event.tokens_before,
            "tokens_after": event.tokens_after,
            "cost_usd": cost_of(event.usage),
            "fallback_used": result.fallback_used,
            "aborted": result.aborted,
            "error": result.error,
        }
        self.record.compactions.append(metadata)
        self._system("compact_boundary", compact_metadata=metadata, message=event.headline)

    def _on_PressureChanged(self, event: ev.PressureChanged) -> None:
        """As in text mode, once each time the level rises (on stderr too): a `notice` of severity warning."""
        self.notes(event)
        p = event.pressure
        if p.level != PressureLevel.NORMAL and p.level != self._level:
            self._system("notice", severity="warning", message=pressure_warning(p), context_percent=p.percent)
        self._level = p.level

    def _on_Notice(self, event: ev.Notice) -> None:
        self.notes(event)  # stderr too, as in text mode: the person at the terminal reads it there
        self._system("notice", severity=event.severity, message=event.text)

    def _on_ErrorEvent(self, event: ev.ErrorEvent) -> None:
        self.notes(event)
        self.record.errors.append(event.text)
        self._system("error", message=event.text)

    def _on_Retrying(self, event: ev.Retrying) -> None:
        self._system(
            "api_retry",
            attempt=event.attempt,
            max_retries=event.max_retries,
            retry_delay_ms=round(event.delay * 1000),
            error=event.reason,
        )

    def _on_TurnFinished(self, event: ev.TurnFinished) -> None:
        self.record.finished = event
        if self._in_message:  # a reply cut off by an error or Ctrl-C
            self._emit({"type": "stream_event", "event": {"type": "message_stop"}})
            self._in_message = False

    def finish(self, exit_code: int, usage: UsageTotals | None = None, *, kept: bool = True) -> None:
        """The `result` object, once: after the turn, or in place of it when the run failed before.
        Not `kept`: the failed run's new session was dropped, so there is no id to --resume."""
        if self._done:
            return
        self._done = True
        if not kept:
            self.session_id = None
        run = usage - self._start_usage if usage is not None else UsageTotals()
        cost = cost_of(run)
        finished = self.record.finished
        subtype = "success" if exit_code == 0 else "error_during_execution"
        self._emit(
            {
                "type": "result",
                "subtype": subtype,
                "is_error": exit_code != 0,
                "exit_code": exit_code,
                "result": self.record.reply,
                "session_id": self.session_id,
                "num_turns": self.record.turns,
                "duration_ms": round((time.monotonic() - self._started) * 1000),
                "usage": usage_fields(run),
                "total_cost_usd": cost,
                "cost_usd": cost,
                "compactions": self.record.compactions,
                "permission_denials": self.record.denials,
                "errors": self.record.errors,
                "cancelled": bool(finished and finished.cancelled),
            }
        )

    def fail(self, message: str, exit_code: int) -> None:
        """A run that ended with an error the command line reports (also on stderr, as in text mode)."""
        self.record.errors.append(message)
        self._system("error", message=message)
        self.finish(exit_code)


@contextmanager
def errors_reported(printer: JsonPrinter) -> Iterator[None]:
    """An error the command line reports on stderr (with the exit code it always had) also ends the
    stream with a `result`, so a wrapper reading stdout learns why there is no reply. A run that
    ends normally has written its `result` already."""
    try:
        yield
    except UsageError as exc:
        printer.fail(str(exc), 2)
        raise
    except UserFacingError as exc:
        printer.fail(str(exc), 1)
        raise
    except (BrokenPipeError, KeyboardInterrupt):
        raise
    except Exception as exc:
        error = exc.error if isinstance(exc, Unexpected) else exc
        printer.fail(f"unexpected error: {type(error).__name__}: {error}", 1)
        raise


def _tool_use(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    return {
        "type": "tool_use",
        "id": call.get("id"),
        "name": function.get("name"),
        "input": _arguments(function.get("arguments") or "{}"),
    }


def _arguments(text: str) -> Any:
    """A call's arguments as JSON when they parse (a model can send broken JSON: then the text)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _ignore(event: ev.Event) -> None:
    """For the events this front end has nothing to write for."""
