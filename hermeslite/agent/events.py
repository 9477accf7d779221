"""What the agent tells its front ends, as typed events.

The TUI and the headless printer subscribe to the same stream; neither reaches
into the agent. Events carry plain data so a subscriber can render them
without knowing how they were produced.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from hermeslite.context.pressure import Pressure
from hermeslite.context.result import CompressionResult
from hermeslite.store.todos import TodoItem
from hermeslite.store.usage import UsageTotals
from hermeslite.tools.base import ApprovalRequest
from hermeslite.tools.edit_diff import EditDiff


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ReplyComplete:
    """A complete assistant message (after streaming), with its tool calls if any."""

    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str
    arguments: str
    by_user: bool = False  # a `!command` the user ran, not a call the model made


@dataclass(frozen=True)
class ToolFinished:
    call_id: str
    name: str
    content: str
    is_error: bool
    exit_code: int | None = None  # a command's exit code; None for tools that run no command
    diff: EditDiff | None = None  # what write_file or patch changed (refused: would have changed)
    refused: bool = False  # a policy, the approval or a hook said no: the call did not run


@dataclass(frozen=True)
class PressureChanged:
    pressure: Pressure


@dataclass(frozen=True)
class CompactionStarted:
    trigger: str  # preflight | reactive | manual | idle (the prompt cache had gone cold) | agent (the model asked)
    focus: str | None
    messages: int
    tokens: int  # the next request, as the meter counts it


@dataclass(frozen=True)
class CompactionFinished:
    trigger: str
    result: CompressionResult
    tokens_before: int  # the next request before and after, as the meter counts it (the engine's
    tokens_after: int  # own figures in `result` leave out the tool schemas and the calibration)
    usage: UsageTotals = field(default_factory=UsageTotals)  # what its summary and memory-flush requests consumed

    @property
    def headline(self) -> str:
        return self.result.headline(self.tokens_before, self.tokens_after)


@dataclass(frozen=True)
class Notice:
    """Something the user should read once (a warning, an adopted window size)."""

    text: str
    severity: str = "information"  # information | warning | error


@dataclass(frozen=True)
class ErrorEvent:
    text: str


@dataclass(frozen=True)
class Retrying:
    """A model call failed and is tried again after `delay` seconds; `reason` is a few words."""

    attempt: int
    max_retries: int
    delay: float
    reason: str

    @property
    def text(self) -> str:
        """`retrying (1/3) in 2 s: rate limited`"""
        seconds = f"{self.delay:.0f}" if self.delay >= 10 else f"{self.delay:.1f}".removesuffix(".0")
        return f"retrying ({self.attempt}/{self.max_retries}) in {seconds} s: {self.reason}"


@dataclass(frozen=True)
class TurnFinished:
    ok: bool
    cancelled: bool = False
    reason: str | None = None
    saved: bool = True  # False: the session store could not keep up (reported by an ErrorEvent)


@dataclass(frozen=True)
class ApprovalRequested:
    """A dangerous command needs a yes or no; the subscriber resolves `answer`."""

    request: ApprovalRequest
    answer: asyncio.Future[bool]


@dataclass(frozen=True)
class ModeChanged:
    """The session's mode changed (default | accept-edits | plan): the status bar shows it."""

    mode: str


class TodoEntry(NamedTuple):
    """One item of a `TodosChanged`: part of an event, not an event itself."""

    content: str
    status: str  # pending | in_progress | completed | cancelled

    @classmethod
    def listing(cls, items: Iterable[TodoItem]) -> tuple[TodoEntry, ...]:
        """The todo list as a front end draws it: the one place an event's items are made."""
        return tuple(cls(item.content, item.status) for item in items)


@dataclass(frozen=True)
class TodosChanged:
    """The todo tool changed the list: a front end that keeps it on screen redraws it."""

    items: tuple[TodoEntry, ...]

    @property
    def open(self) -> bool:
        """Some item is still pending or in progress."""
        return any(item.status in ("pending", "in_progress") for item in self.items)


Event = (
    TextDelta
    | ReplyComplete
    | ToolStarted
    | ToolFinished
    | PressureChanged
    | CompactionStarted
    | CompactionFinished
    | Notice
    | ErrorEvent
    | Retrying
    | TurnFinished
    | ApprovalRequested
    | ModeChanged
    | TodosChanged
)
Subscriber = Callable[[Event], None]
