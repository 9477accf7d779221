"""A compaction as one line in the chat that opens onto the full checkpoint.

Compression is the feature users steer, so its card says everything a user
needs to trust it: the trigger (preflight / reactive / manual / idle), messages and
tokens before -> after (the whole next request, as the status-bar meter counts it), whether the code-built fallback stood in for a failed
summary, the focus, what its summary and memory-flush requests cost and how
much of that was read from the prompt cache, and the checkpoint the model now
sees. But a long session compacts many times, so a finished card is one line
until it is clicked (or Ctrl+O): the details and the checkpoint, as clean
Markdown, are inside. While it runs it says what it is doing ("Compressing 48
messages (~96k tokens), focus: ...").
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.collapsible import CollapsibleTitle

from hermeslite.context.result import CompressionResult
from hermeslite.display import compaction_cost, format_tokens, neutralize, plural
from hermeslite.store.usage import UsageTotals

from ..format import checkpoint_markdown
from .spinner import Spinner

MARKS = {"done": "⟳", "noop": "⟳", "fallback": "⚠", "aborted": "✗"}


def started_text(messages: int, tokens: int, focus: str | None) -> str:
    focus_part = f", focus: {focus}" if focus else ""
    return f"Compressing {plural(messages, 'message')} (~{format_tokens(tokens)} tokens){focus_part}..."


def outcome_lines(result: CompressionResult, tokens_before: int, tokens_after: int) -> tuple[str, list[str]]:
    """(state, lines) for a CompressionResult: compressed / no-op / fallback / aborted.

    `tokens_before` / `tokens_after` are the next request as the meter counts
    it. The first line is the card's one-line title; the others are its details.
    """
    before_after = (
        f"{result.messages_before} → {plural(result.messages_after, 'message')} · "
        f"~{format_tokens(tokens_before)} → ~{format_tokens(tokens_after)} tokens"
    )
    if result.aborted:
        return "aborted", [f"Aborted, nothing removed: {result.error or 'the summary failed'}"]
    if not result.changed:
        return "noop", [
            f"No change: {plural(result.messages_before, 'message')}, ~{format_tokens(tokens_before)} tokens"
            " (nothing worth removing)"
        ]
    ratio = (tokens_before - tokens_after) / tokens_before if tokens_before else 0.0
    saved = f" (−{round(100 * ratio)}%)"
    upto = f"turns 1-{result.upto} · " if result.upto is not None else ""
    lines = [upto + before_after + saved]
    if result.upto is not None:
        lines.append(f"user turns 1-{result.upto} summarized; every turn after them kept verbatim")
    if result.fallback_used:
        reason = f": {result.error}" if result.error else ""
        lines.append(f"⚠ fallback checkpoint built by code, no model summary{reason}")
    elif result.pruned_only and not result.turn_shortened:
        lines.append("old tool output pruned; no summary was needed")
    if result.turn_shortened:
        lines.append(
            f"{plural(result.turn_shortened, 'tool result')} of this turn cut to head and tail to fit; "
            "the whole is in the archive (/recall)"
        )
    return ("fallback" if result.fallback_used else "done"), lines


class CompactionCard(Vertical):
    """Starts as a spinner line; `finish(result)` turns it into a collapsed one-line card."""

    def __init__(self, trigger: str, focus: str | None, messages: int, tokens: int, *, motion: bool = True) -> None:
        super().__init__(classes="-running")
        self.trigger = trigger
        self.focus_topic = neutralize(focus) if focus else focus  # not `focus`: that is Widget.focus()
        self.state = "running"
        self.details: Collapsible | None = None
        self._spinner = Spinner(
            started_text(messages, tokens, self.focus_topic), classes="compaction-status", motion=motion
        )

    def compose(self) -> ComposeResult:
        yield self._spinner

    def _set_state(self, state: str) -> None:
        self.remove_class(f"-{self.state}")
        self.add_class(f"-{state}")
        self.state = state

    async def finish(self, result, tokens_before: int, tokens_after: int, usage: UsageTotals | None = None) -> None:
        """The outcome, the focus, and what the compaction's own model requests cost."""
        state, lines = outcome_lines(result, tokens_before, tokens_after)
        lines = [neutralize(line) for line in lines]  # they can quote a provider's error
        self._set_state(state)
        if self.focus_topic:
            lines.append(f"focus: {self.focus_topic}")
        if usage is not None and usage.requests:
            lines.append(compaction_cost(usage))
        body: list = [Static(Content(line), classes="compaction-line") for line in lines[1:]]
        if result.summary and not result.aborted and result.changed:
            body += [
                Static(
                    Content("Checkpoint (what the model now sees in place of the older turns):"),
                    classes="compaction-line -heading",
                ),
                Markdown(checkpoint_markdown(neutralize(result.summary)), classes="compaction-summary"),
            ]
        if not body:
            body.append(Static(Content("Nothing more to show."), classes="compaction-line"))
        title = f"{MARKS[state]} compaction · {self.trigger} · {lines[0]}"
        self.details = Collapsible(*body, title=Content(title), collapsed=True)  # type: ignore[arg-type]  # Content, not str: no markup in the title
        await self._spinner.remove()
        await self.mount(self.details)
        self.details.query_one(CollapsibleTitle).can_focus = False

    def cancel(self) -> None:
        self._set_state("aborted")
        self._spinner.stop(f"✗ compaction · {self.trigger} · cancelled by the user: the transcript is unchanged")
