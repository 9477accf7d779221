"""Idle compaction: compact when the prompt cache has gone cold, before the context is full.

Claude keeps a marked prefix for its TTL (`model.cache_ttl`: 5 minutes, or an
hour), renewed by every request that reads it. A session left alone longer
than that has lost its cache: the next request pays to write the whole
conversation again (1.25x the input price, 2x for the hour TTL), where a warm
one would have read it at a tenth. If the context is already most of the way
to the threshold (`compression.idle_share`, 70% by default), a compaction is
coming in a few turns anyway; doing it now means the cold write is of the
short checkpoint and tail instead of the long transcript, and the turns that
follow read the short one.

It must pay, though: a model summary reads the cold prefix once too (sent
without cache marks, at the plain input price: nothing will read it again),
and the compacted request is then written to the cache. So the compaction
runs only when that costs less than the cold write it replaces: summary (1x
the prefix) + the compacted request at the write premium < the prefix at the
write premium. At the hour TTL (2x) that is a compacted request under half
the prefix, which a compaction at 70% of the threshold usually gives; at 5
minutes (1.25x) it takes one under a fifth, which a model summary seldom
gives, so there idle compaction mostly runs when the checkpoint is built by
code (a window too small for a summary: no summary request). Output, and
the tenth saved on each later read of a shorter prefix, are left out: they
are about the same size and pull opposite ways.

Only Claude's marked cache counts (`CachePlan.marks`): there the lifetime is
the one we asked for. Providers that cache by themselves (OpenAI, DeepSeek,
Gemini) keep a prefix for a time they choose and do not report (minutes on
some, hours on others), so an idle gap says nothing about theirs, and
compacting a cache that may still be warm would cost more, not less. With no
caching at all there is nothing to go cold: each request pays the same,
idle or not, and the threshold alone decides.

Idle time is measured from the session's last model request (its usage row,
saved with the session, so a session resumed the next morning knows how long
it sat) on an injectable clock, so tests and benchmarks let time pass without
waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hermeslite.context.plan import Preview
from hermeslite.llm.caching import CachePlan
from hermeslite.llm.errors import LLMError

from .deps import AgentDeps

TTL_SECONDS = {"5m": 300.0, "1h": 3_600.0}
WRITE_PREMIUM = {"5m": 1.25, "1h": 2.0}  # a cache write's price, in units of the input price (Anthropic's)


@dataclass(frozen=True)
class IdleState:
    """What the decision reads: the setting, the cache, how long the session has sat, how full it is."""

    setting: str  # compression.idle_compact: auto | off
    plan: CachePlan
    idle_seconds: float | None  # since the last model request; None: no request recorded
    tokens: int  # the next request, as the meter counts it
    threshold: int  # the compaction threshold, in the same count
    share: float  # compression.idle_share


def ttl_seconds(plan: CachePlan) -> float:
    return TTL_SECONDS.get(plan.ttl, TTL_SECONDS["5m"])


def idle_compaction_due(state: IdleState) -> bool:
    """Whether to compact before the next request because the cache went cold while the session sat.

    A request at or over the threshold is not this rule's: preflight compacts it
    whatever the cache holds.
    """
    if state.setting != "auto" or not state.plan.marks or state.idle_seconds is None:
        return False
    if state.idle_seconds < ttl_seconds(state.plan):
        return False
    return state.share * state.threshold <= state.tokens < state.threshold


def compaction_pays(state: IdleState, after: int, *, summary_call: bool) -> bool:
    """Whether compacting now (to a request of about `after` tokens; with a model summary, which reads
    the cold prefix once at the input price, when `summary_call`) costs less than writing the cold
    prefix to the cache again."""
    premium = WRITE_PREMIUM.get(state.plan.ttl, WRITE_PREMIUM["5m"])
    summary = state.tokens if summary_call else 0
    return summary + premium * after < premium * state.tokens


async def idle_state(deps: AgentDeps, tokens: int, planned: Callable[[], Preview]) -> IdleState | None:
    """The state when an idle compaction is due and pays now, else None; `tokens` is the next request
    as the meter counts it. What costs something is asked last: the cache plan (a first request's
    client loads litellm, ~3 s, off the event loop here) and the plan of the compaction (it walks the
    transcript)."""
    c = deps.compressor
    idle = deps.usage.idle_seconds()
    if not c.config.enabled or c.config.idle_compact != "auto" or idle is None or idle < min(TTL_SECONDS.values()):
        return None
    if not c.config.idle_share * c.threshold_tokens <= tokens < c.threshold_tokens or c.blocked_reason() is not None:
        return None
    try:
        await deps.llm.prepare()
    except LLMError:
        return None  # the request that follows says what is wrong
    state = IdleState(
        c.config.idle_compact,
        deps.llm.cache_plan(),
        idle,
        tokens,
        c.threshold_tokens,
        c.config.idle_share,
    )
    if not idle_compaction_due(state):
        return None
    planned_pass = planned()
    pays = compaction_pays(state, planned_pass.estimated_after, summary_call=planned_pass.summary_call)
    return state if pays else None


def idle_notice(state: IdleState) -> str:
    """The line the user reads before the compaction starts."""
    idle = _duration(state.idle_seconds or 0.0)
    return (
        f"Idle for {idle}, past the prompt cache's {state.plan.ttl} lifetime, so the cache is cold: compacting "
        f"now ({state.tokens:,} tokens, {round(100 * state.tokens / state.threshold)}% of the threshold) "
        "instead of paying to send the whole conversation again (compression.idle_compact: off turns this off)."
    )


def _duration(seconds: float) -> str:
    if seconds < 3_600:
        return f"{int(seconds // 60)} min"
    if seconds < 2 * 86_400:
        hours, rest = divmod(int(seconds), 3_600)
        return f"{hours} h {rest // 60} min" if rest >= 60 else f"{hours} h"
    return f"{int(seconds // 86_400)} days"
