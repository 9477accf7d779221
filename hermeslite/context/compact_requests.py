"""The guard on compactions the model asks for with the `context` tool (compression.agent_tool).

A model that can compact its own context can also waste it: compact a
context that is nearly empty, ask again right after a compaction, or fall
into a loop of asking every turn, each time paying for a summary and losing
detail. So a request is refused, with the reason the model reads, when:

- a compaction (of any trigger) already ran during this user turn: there is
  nothing new to compact yet;
- a request is already pending for the end of this turn;
- the conversation before this turn (what a compaction can replace: the
  turn itself is always kept whole, see turn.py) is under MIN_SHARE of the
  compaction threshold: compacting that little costs a summary and saves
  little;
- LOOP_LIMIT compactions the model asked for already ran within the last
  LOOP_TURNS user turns: asking more often than that is a loop, not steering.

The state is a value: each change returns a new one, so the rules are
tested without an agent. It counts the user turns of one process: a session
continued in a new process (`-p --continue`, one user turn per run) starts a
fresh count, so across runs the loop rule does not hold and the share rule
is the bound: after a compaction the model can ask again only once the
conversation before its turn has grown back past MIN_SHARE of the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MIN_SHARE = 0.25  # of the threshold: below it, a requested compaction is refused as waste
LOOP_LIMIT = 2  # model-requested compactions ...
LOOP_TURNS = 6  # ... within this many user turns, before further requests are refused
AGENT_TRIGGER = "agent"  # the trigger name of a compaction the model asked for


@dataclass(frozen=True)
class CompactRequests:
    """User turns begun, when the last compaction ran, the model's compactions, and a pending request."""

    turns: int = 0  # user turns begun in this process
    last_compaction: int | None = None  # `turns` when the last compaction (any trigger) ran
    agent_compactions: tuple[int, ...] = ()  # `turns` at each compaction the model asked for
    pending: bool = False  # a request waits for the end of this turn
    focus: str | None = None  # what the pending request asked to keep

    def turn_begun(self) -> CompactRequests:
        """A user turn starts; a request left from an unfinished turn is dropped."""
        return replace(self, turns=self.turns + 1, pending=False, focus=None)

    def refusal(self, compactable: int, threshold: int) -> str | None:
        """Why a request for a compaction now is refused, or None when it is accepted. `compactable`:
        the tokens of the conversation before this turn, in the meter's units."""
        if self.pending:
            return "a compaction is already requested for the end of this turn"
        if self.last_compaction == self.turns:
            return "the context was already compacted during this user turn; there is nothing new to compact"
        floor = int(threshold * MIN_SHARE)
        if compactable < floor:
            return (
                f"the conversation before this turn holds {compactable:,} tokens, under {MIN_SHARE:.0%} of the "
                f"compaction threshold ({floor:,} of {threshold:,}), and this turn is kept whole: compacting "
                "would cost a summary and save little"
            )
        recent = self.recent_agent_compactions()
        if recent >= LOOP_LIMIT:
            return (
                f"{recent} compactions you asked for already ran in the last {LOOP_TURNS} user turns; "
                "automatic compaction still runs when the context reaches the threshold"
            )
        return None

    def recent_agent_compactions(self) -> int:
        """Model-requested compactions within the last LOOP_TURNS user turns (this one included)."""
        return sum(1 for turn in self.agent_compactions if turn > self.turns - LOOP_TURNS)

    def requested(self, focus: str | None) -> CompactRequests:
        """A request accepted (see `refusal`): it runs after the turn's final reply."""
        return replace(self, pending=True, focus=focus or None)

    def taken(self) -> CompactRequests:
        """The pending request is being run (or dropped: the turn ended without a final reply)."""
        return replace(self, pending=False, focus=None)

    def compacted(self, trigger: str) -> CompactRequests:
        """A compaction changed the transcript during the current user turn (or after it, before the
        next one begins)."""
        agent = (*self.agent_compactions, self.turns) if trigger == AGENT_TRIGGER else self.agent_compactions
        return replace(self, last_compaction=self.turns, agent_compactions=agent[-LOOP_LIMIT:])
