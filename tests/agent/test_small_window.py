"""A window too small for a useful summary (3,700 tokens): compactions send no summary or flush request.

(3,700 rather than 3,500 since the web_fetch tool's schema joined every request: at 3,500 the fixed
part left one preflight pass with nothing it could drop.)
"""

from __future__ import annotations

from hermeslite.agent import events as ev
from tests.agent.helpers import is_flush_request
from tests.builders import assert_valid
from tests.summary_requests import answer_summaries, is_summary_request


async def test_at_3700_tokens_no_summary_or_flush_request_reaches_the_server_and_one_line_says_why(
    make_agent, scripted_server
):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=3_700, memory={"flush_min_turns": 1})
    for n in range(8):
        assert (await agent.run_turn(f"turn {n}: please look at module {n} " + "and its tests " * 30)).ok
    finished = rec.of(ev.CompactionFinished)
    assert len(finished) >= 2 and all(f.result.fallback_used for f in finished)
    assert all("under the 400 (compression.min_summary_tokens)" in (f.result.error or "") for f in finished)
    assert not [b for b in scripted_server.requests if is_summary_request(b) or is_flush_request(b)]
    said = [n.text for n in rec.of(ev.Notice) if "min_summary_tokens" in n.text]
    assert len(said) == 1 and "no summary or memory-flush request" in said[0]
    assert_valid(agent.messages)


async def test_with_the_floor_at_zero_the_model_is_asked_even_there(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(context_window=3_500, compression={"min_summary_tokens": 0})
    for n in range(8):
        assert (await agent.run_turn(f"turn {n}: please look at module {n} " + "and its tests " * 30)).ok
    assert [b for b in scripted_server.requests if is_summary_request(b)]
    assert not [n for n in rec.of(ev.Notice) if "min_summary_tokens" in n.text]
