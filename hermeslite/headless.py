"""The headless front end: the reply on stdout, everything else on stderr.

Keeping the reply alone on stdout makes `hermeslite -p "..." > answer.txt`
and pipes work; tool activity, compaction notices and errors still reach the
person at the terminal through stderr. Everything printed passes through
`neutralize`, so no reply or tool output can send the terminal commands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from hermeslite.agent import events as ev
from hermeslite.context.clip import clip_end
from hermeslite.context.pressure import Pressure, PressureLevel
from hermeslite.display import (
    compaction_cost,
    format_tokens,
    key_argument,
    neutralize,
    plural,
    session_usage,
)
from hermeslite.store.usage import UsageTotals
from hermeslite.tools.edit_diff import EditDiff

PREVIEW_CHARS = 100  # a tool's argument or last line of output, in the one line it gets
ERROR_CHARS = 600  # an error's last line: a denial's reason and how to permit it must fit
DIFF_LINES = 20  # change lines of an edit's diff shown on stderr; the rest is counted


class HeadlessPrinter:
    """An event subscriber that prints; one instance per process."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.gone: set[int] = set()  # ids of the streams whose reader has gone away
        self._mid_line = False
        self._level = PressureLevel.NORMAL
        # Every event class, by class: a renamed or new event fails here or in the test, never
        # silently. The whole reply arrives as text deltas, and a headless agent asks no approvals.
        self.handlers: dict[type[ev.Event], Callable[[Any], None]] = {
            ev.TextDelta: self._on_TextDelta,
            ev.ReplyComplete: _ignore,
            ev.ToolStarted: self._on_ToolStarted,
            ev.ToolFinished: self._on_ToolFinished,
            ev.PressureChanged: self._on_PressureChanged,
            ev.CompactionStarted: self._on_CompactionStarted,
            ev.CompactionFinished: self._on_CompactionFinished,
            ev.Notice: self._on_Notice,
            ev.ErrorEvent: self._on_ErrorEvent,
            ev.Retrying: self._on_Retrying,
            ev.TurnFinished: self._on_TurnFinished,
            ev.ApprovalRequested: _ignore,
            ev.ModeChanged: _ignore,  # the line chat's /mode says the new mode itself
            ev.TodosChanged: _ignore,  # the todo tool's own line says what changed
        }

    def __call__(self, event: ev.Event) -> None:
        self.handlers[type(event)](event)

    @property
    def reader_gone(self) -> bool:
        """Whether the reader of stdout or stderr went away (`| head -c 100`): the run ends with 141 once
        the turn is saved."""
        return bool(self.gone)

    def _write(self, stream: TextIO, text: str) -> None:
        """Write and flush; a reader that has gone away ends this stream's output, not the turn.

        The turn goes on to its end and is saved, so `--continue` finds the
        reply that the reader stopped reading; the caller then exits as a
        program ended by SIGPIPE would.
        """
        if id(stream) in self.gone:
            return
        try:
            stream.write(text)
            stream.flush()
        except BrokenPipeError:
            self.gone.add(id(stream))

    def _note(self, text: str) -> None:
        if self._mid_line:
            self._write(self.out, "\n")
            self._mid_line = False
        self._write(self.err, neutralize(text) + "\n")

    def _on_TextDelta(self, event: ev.TextDelta) -> None:
        self._write(self.out, neutralize(event.text))
        self._mid_line = not event.text.endswith("\n")

    def _on_ToolStarted(self, event: ev.ToolStarted) -> None:
        self._note(f"» {event.name}: {key_argument(event.arguments, PREVIEW_CHARS)}")

    def _on_ToolFinished(self, event: ev.ToolFinished) -> None:
        lines = event.content.strip().splitlines() or [""]
        # An edit's own diff follows; of a patch's result (which ends in the model's diff) the head says it.
        last = lines[0] if event.diff is not None else lines[-1]
        if event.is_error:  # an error line says what went wrong and how to permit it: all of it
            self._note(f"  ✗ {clip_end(last, ERROR_CHARS)}")
        else:
            self._note(f"  ✓ {clip_end(last, PREVIEW_CHARS)}")
        if event.diff is not None:
            self._edit_diff(event.diff, refused=event.is_error)

    def _edit_diff(self, diff: EditDiff, *, refused: bool) -> None:
        """An edit's diff under its tool line, compact: the stat, then at most DIFF_LINES change lines,
        each cut to the preview width. A refused edit's says it was not written."""
        summary, *lines = diff.compact(DIFF_LINES)
        self._note(f"    {summary}{' (not written)' if refused else ''}")
        for line in lines:
            self._note(f"    {clip_end(line, PREVIEW_CHARS)}")

    def _on_CompactionStarted(self, event: ev.CompactionStarted) -> None:
        focus = f", focus: {event.focus}" if event.focus else ""
        self._note(
            f"⟳ compressing ({event.trigger}) {plural(event.messages, 'message')}, ~{format_tokens(event.tokens)} tokens{focus}…"
        )

    def _on_CompactionFinished(self, event: ev.CompactionFinished) -> None:
        result = event.result
        why = f" ({result.error})" if result.fallback_used and result.error else ""
        cost = f" · {compaction_cost(event.usage)}" if event.usage.requests else ""
        self._note(f"⟳ {event.headline}{why}{cost}")

    def startup(self, notes: list[str]) -> None:
        """The agent's start-up lines (how prompt caching applies), shown with --verbose."""
        for line in notes:
            self._note(f"note: {line}")

    def session_summary(self, usage: UsageTotals, pressure: Pressure) -> None:
        """The end-of-run lines with --verbose: the session's requests, cache hits and cost, and what
        the next request (a `--continue`) carries, counted as the TUI's meter counts it."""
        self._note(f"session: {session_usage(usage)}")
        self._note(
            f"context: next request ~{format_tokens(pressure.tokens)} tokens, {pressure.percent}% of the way "
            f"to compaction at {format_tokens(pressure.threshold)}"
        )

    def _on_PressureChanged(self, event: ev.PressureChanged) -> None:
        p = event.pressure
        if p.level != PressureLevel.NORMAL and p.level != self._level:
            self._note(f"! {pressure_warning(p)}")
        self._level = p.level

    def _on_Notice(self, event: ev.Notice) -> None:
        self._note(f"note: {event.text}")

    def _on_ErrorEvent(self, event: ev.ErrorEvent) -> None:
        self._note(f"error: {event.text}")

    def _on_Retrying(self, event: ev.Retrying) -> None:
        self._note(f"note: {event.text}")

    def _on_TurnFinished(self, event: ev.TurnFinished) -> None:
        if self._mid_line:
            self._write(self.out, "\n")
            self._mid_line = False
        if event.cancelled:
            self._note("(cancelled)")


def pressure_warning(p: Pressure) -> str:
    """The warning once the context nears the compaction threshold (also a JSON notice)."""
    return (
        f"context {p.percent}% of the way to compaction ({format_tokens(p.tokens)} / {format_tokens(p.threshold)} tokens)"
        " - /compress [focus] to compact now"
    )


def _ignore(event: ev.Event) -> None:
    """For the events this front end has nothing to show for."""
