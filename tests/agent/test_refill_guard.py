"""The refill guard through the real loop: three compactions each full again within a turn stop the next.

Every reply of the scripted model is ~11k tokens at a 16k window (threshold 12k): whatever a
compaction frees, the next turn fills, so each turn's preflight compacts again. After three such
compactions the fourth is not run: the user is told why and what to do, the warning bar says it,
the pause holds in later turns and in another process, and a manual /compress lifts it.
"""

from __future__ import annotations

from hermeslite.agent import events as ev
from hermeslite.agent.compaction import REFILL_NOTICE
from hermeslite.context.handoff import has_handoff
from hermeslite.context.messages import REFILL_KEY
from hermeslite.context.refill import REFILL_LIMIT
from tests.server import Reply
from tests.summary_requests import checkpoint, is_summary_request

LONG_REPLY = "The answer goes on at length about the design. " * 920  # ~44k characters, ~11k tokens


def talkative(body: dict) -> Reply:
    return Reply.text(checkpoint() if is_summary_request(body) else LONG_REPLY)


def automatic(rec) -> list[str]:
    return [e.trigger for e in rec.of(ev.CompactionStarted) if e.trigger != "manual"]


def stored_strikes(store, session_id: str) -> int:
    [stamp] = [m[REFILL_KEY] for m in store.load_transcript(session_id) if has_handoff(m)]
    return stamp["strikes"]


async def test_three_compactions_refilled_within_a_turn_pause_automatic_compaction_until_a_manual_one(
    make_agent, scripted_server
):
    scripted_server.responder = talkative
    agent, rec = make_agent(context_window=16_000)
    for n in range(4):
        assert (await agent.run_turn(f"question {n}")).ok
    assert automatic(rec) == ["preflight"] * 3  # turns 2, 3 and 4 each compacted what one turn filled
    assert not rec.of(ev.Notice) or all(n.text != REFILL_NOTICE for n in rec.of(ev.Notice))
    assert (await agent.run_turn("question 4")).ok
    assert automatic(rec) == ["preflight"] * 3  # the fourth was not run
    assert [n.severity for n in rec.of(ev.Notice) if n.text == REFILL_NOTICE] == ["warning"]
    assert "/handoff" in REFILL_NOTICE and "bigger window" in REFILL_NOTICE and "/compress <focus>" in REFILL_NOTICE
    assert agent.pressure().paused and agent.pressure().ratio > 1
    assert stored_strikes(make_agent.store, agent.session_id) == REFILL_LIMIT  # saved: it holds in a new process
    assert (await agent.run_turn("question 5")).ok
    assert automatic(rec) == ["preflight"] * 3  # still paused a turn later, told once
    assert len([n for n in rec.of(ev.Notice) if n.text == REFILL_NOTICE]) == 1

    again, rec2 = make_agent(context_window=16_000, session_id=agent.session_id)
    assert (await again.run_turn("question 6")).ok
    assert not rec2.of(ev.CompactionStarted) and [n.text for n in rec2.of(ev.Notice)].count(REFILL_NOTICE) == 1

    result = await again.compress_now()
    assert result.changed and not again.pressure().paused
    assert stored_strikes(make_agent.store, again.session_id) == 0
    assert (await again.run_turn("question 7")).ok
    assert (await again.run_turn("question 8")).ok
    assert [e.trigger for e in rec2.of(ev.CompactionStarted)][:2] == ["manual", "preflight"]  # automatic again


async def test_compactions_a_few_turns_apart_never_pause(make_agent, scripted_server):
    def every_third_long(body: dict) -> Reply:
        if is_summary_request(body):
            return Reply.text(checkpoint())
        asked = str(body["messages"][-1]["content"])
        return Reply.text(LONG_REPLY if asked.endswith(("2", "5", "8", "11")) else "short")

    scripted_server.responder = every_third_long
    agent, rec = make_agent(context_window=16_000)
    for n in range(12):
        assert (await agent.run_turn(f"question {n}")).ok
    assert len(automatic(rec)) >= 3
    assert all(n.text != REFILL_NOTICE for n in rec.of(ev.Notice)) and not agent.pressure().paused


async def test_an_overflow_while_paused_ends_the_turn_with_what_to_do(make_agent, scripted_server):
    scripted_server.responder = talkative
    agent, rec = make_agent(context_window=16_000)
    for n in range(5):
        await agent.run_turn(f"question {n}")
    assert agent.pressure().paused
    scripted_server.overflow_above(16_000)
    finished = await agent.run_turn("one more")
    assert not finished.ok and not [e for e in rec.of(ev.CompactionStarted) if e.trigger == "reactive"]
    assert "Automatic compaction is paused" in rec.of(ev.ErrorEvent)[-1].text
    assert "/handoff" in rec.of(ev.ErrorEvent)[-1].text
