"""What one call to `ContextCompressor.compress` reports back."""

from __future__ import annotations

from dataclasses import dataclass, field

from .messages import Message


@dataclass(repr=False)
class CompressionResult:
    messages: list[Message]
    tokens_before: int
    tokens_after: int
    messages_before: int
    summary: str | None = None  # the checkpoint text now in the transcript, if one was made
    fallback_used: bool = False  # the checkpoint was built by code, not by a model
    aborted: bool = False  # auth/quota failure: transcript returned unchanged
    pruned_only: bool = False  # the deterministic prune was enough; no LLM call
    dropped: int = 0  # messages removed from the transcript into the summary
    error: str | None = None  # why a summary could not be made, one line
    archived: dict[str, Message] = field(default_factory=dict)  # reference id -> original message
    focus_topic: str | None = None
    target_tokens: int = 0  # what a request may carry right after a compaction
    too_large: str | None = None  # why the request is still over target_tokens (e.g. a huge latest message)
    upto: int | None = None  # /compress --upto N: user turns 1..N were summarized, the rest kept verbatim
    turn_shortened: int = 0  # tool results of the turn in progress cut to their head and tail to fit
    turn_overflow: str | None = None  # why the turn in progress cannot go on: it does not fit even cut

    def __repr__(self) -> str:
        """Counts only: the messages and archive can be megabytes, and results get logged."""
        flags = [
            name
            for name, on in (
                ("fallback_used", self.fallback_used),
                ("aborted", self.aborted),
                ("pruned_only", self.pruned_only),
            )
            if on
        ]
        extra = "".join(f", {name}" for name in flags)
        error = f", error={self.error[:80]!r}" if self.error else ""
        return (
            f"CompressionResult({self.messages_before}->{self.messages_after} messages, "
            f"{self.tokens_before}->{self.tokens_after} tokens, dropped={self.dropped}, "
            f"archived={len(self.archived)}{extra}{error})"
        )

    @property
    def messages_after(self) -> int:
        return len(self.messages)

    @property
    def changed(self) -> bool:
        return self.tokens_after < self.tokens_before

    @property
    def saved_ratio(self) -> float:
        return (self.tokens_before - self.tokens_after) / self.tokens_before if self.tokens_before else 0.0

    def headline(self, request_before: int | None = None, request_after: int | None = None) -> str:
        """One line for the user, e.g. "Compressed: 48 → 12 messages, ~96k → ~21k tokens".

        The agent passes the whole request before and after (tool schemas
        included, in the provider's tokens) so the line reads like its meter;
        without them the sizes are the engine's estimate of the messages.
        """
        before = self.tokens_before if request_before is None else request_before
        after = self.tokens_after if request_after is None else request_after
        sizes = f"~{format_tokens(before)} → ~{format_tokens(after)} tokens"
        counts = f"{self.messages_before} → {plural(self.messages_after, 'message')}"
        if self.aborted:
            return f"Compression aborted, nothing removed ({self.error or 'summary failed'})"
        if not self.changed:
            return f"No change: {plural(self.messages_before, 'message')}, ~{format_tokens(before)} tokens"
        turns = f" turns 1-{self.upto}" if self.upto is not None else ""
        kept = " (later turns kept verbatim)" if self.upto is not None else ""
        if self.fallback_used:
            return f"Compressed{turns} with fallback checkpoint{kept}: {counts}, {sizes}"
        if self.pruned_only:
            done = "Shortened tool output of this turn" if self.turn_shortened else "Pruned old tool output"
            return f"{done}: {counts}, {sizes}"
        return f"Compressed{turns}{kept}: {counts}, {sizes}"

    def advice(self) -> str | None:
        """What the user should know beyond the headline: why the context is still too full."""
        return f"Context still too full: {self.too_large}." if self.too_large else None

    def turn_note(self) -> str | None:
        """What happened to the turn in progress, when its own output had to be cut to fit."""
        if not self.turn_shortened:
            return None
        return (
            f"Cut {plural(self.turn_shortened, 'tool result')} of this turn to head and tail to fit the context "
            "window; the model is told, and the whole stays in the session archive (/recall <id>)."
        )


def format_tokens(tokens: int) -> str:
    """640 below 1k tokens, 4.2k below 10k, 96k below a million, then 1M or 1.5M: precise where it
    matters, short everywhere (a small span once read `~0.0k tokens`, a 1M window `1000k`)."""
    if tokens < 1_000:
        return str(tokens)
    if tokens < 10_000:
        return f"{tokens / 1000:.1f}k"
    if tokens < 999_500:
        return f"{round(tokens / 1000)}k"
    millions = tokens / 1_000_000
    return f"{millions:.1f}".removesuffix(".0") + "M" if millions < 10 else f"{round(millions)}M"


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 message`, `2 messages`: a count with its noun, spelled right for one."""
    return f"{count:,} {word if count == 1 else (words or word + 's')}"
