"""The memory flush stays inside the window however long the session, and a failed one is one warning."""

from __future__ import annotations

import json

from hermeslite.agent import events as ev
from hermeslite.agent.compaction import FLUSH_FAILED
from hermeslite.agent.flush import (
    EXCERPT_INTRO,
    EXCERPT_WINDOW_SHARE,
    FLUSH_INSTRUCTION,
    FLUSH_REPLY_TOKENS,
    flush_request,
)
from hermeslite.context.handoff import merge_into
from hermeslite.context.tokens import estimate_tokens
from tests.agent.helpers import is_flush_request
from tests.builders import agent_session, assert_valid
from tests.server import Reply, estimate_prompt_tokens
from tests.summary_requests import checkpoint, is_summary_request


async def test_flush_of_a_huge_session_stays_inside_the_window(make_agent, scripted_server):
    window = 32_000
    flushes = []

    def respond(body):
        if is_summary_request(body):
            return Reply.text(checkpoint())
        if is_flush_request(body):
            flushes.append(body)
            return Reply.tool_calls(
                [("memory", {"action": "add", "target": "user", "content": "Runs the tests with pytest -q."})]
            )
        return None

    scripted_server.responder = respond
    agent, rec = make_agent(context_window=window, memory={"flush_min_turns": 3})
    session = agent_session(5_000, output_chars=400)  # 20,001 messages, about 3 MB
    first = next(i for i, m in enumerate(session) if m["role"] == "user")
    session[first] = merge_into(session[first], "## Active Task\nPort the parser to Rust (earlier work).", {})
    agent.adopt_transcript([agent.messages[0], *session[1:]])
    assert len(json.dumps(agent.messages)) > 2_500_000

    result = await agent.compress_now()

    assert result.changed
    assert len(flushes) == 1
    body = flushes[0]
    assert estimate_prompt_tokens(body) < window  # tool schemas included
    excerpt = body["messages"][-1]["content"]
    assert "Port the parser to Rust" in excerpt  # the checkpoint of what was compacted before
    assert "Step 4999: please fix the failing test" in excerpt  # the most recent turn
    assert body["messages"][0]["role"] == "system" and len(body["messages"]) == 2
    assert "Runs the tests with pytest -q." in agent.deps.memory.snapshot()
    assert all(FLUSH_FAILED not in n.text for n in rec.of(ev.Notice))


async def test_a_small_session_is_flushed_whole(make_agent, scripted_server):
    flushes = []
    scripted_server.responder = lambda body: (
        Reply.text(checkpoint())
        if is_summary_request(body)
        else (flushes.append(body) or Reply.text("nothing to save"))
        if is_flush_request(body)
        else None
    )
    agent, _ = make_agent(memory={"flush_min_turns": 3})
    for n in range(4):
        assert (await agent.run_turn(f"turn {n}")).ok
    sent = [m["content"] for m in json.loads(json.dumps(agent.messages))]
    await agent.compress_now()
    assert [m["content"] for m in flushes[0]["messages"][:-1]] == sent


async def test_a_failed_flush_is_one_warning_and_compaction_goes_on(make_agent, scripted_server):
    def respond(body):
        if is_summary_request(body):
            return Reply.text(checkpoint())
        if is_flush_request(body):
            return Reply.error(400, "tools are not supported by this deployment")
        return None

    scripted_server.responder = respond
    agent, rec = make_agent(memory={"flush_min_turns": 3})
    for n in range(6):
        assert (await agent.run_turn(f"turn {n}: " + "lorem ipsum dolor sit amet " * 60)).ok
    result = await agent.compress_now()
    assert result.changed and not result.aborted
    warnings = [n for n in rec.of(ev.Notice) if n.text.startswith(FLUSH_FAILED)]
    assert len(warnings) == 1 and warnings[0].severity == "warning"
    assert "\n" not in warnings[0].text and "tools are not supported" in warnings[0].text
    assert_valid(agent.messages)


def _transcript(tokens: int) -> list[dict]:
    """A system prompt and one exchange that together estimate at about `tokens`."""
    body = "word " * (tokens * 4 // 5)
    return [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": body},
        {"role": "assistant", "content": "Noted."},
    ]


def test_a_transcript_that_leaves_room_for_the_reply_is_flushed_whole():
    # At 8k the flush runs once the live request passes the 6,144-token threshold; one tool
    # result can take it past 90% of the window, and it still goes whole while the reply fits.
    window, tools = 8_192, [{"type": "function", "function": {"name": "memory", "parameters": {}}}]
    messages = _transcript(int(window * 0.9))
    request = flush_request(messages, window, tools)
    assert request[:-1] == messages and request[-1]["content"] == FLUSH_INSTRUCTION
    room = window - estimate_tokens(request) - estimate_tokens(json.dumps(tools))
    assert room >= FLUSH_REPLY_TOKENS


def test_a_transcript_that_leaves_no_room_for_the_reply_is_flushed_as_an_excerpt():
    window, tools = 8_192, [{"type": "function", "function": {"name": "memory", "parameters": {}}}]
    messages = _transcript(window - FLUSH_REPLY_TOKENS // 2)
    request = flush_request(messages, window, tools)
    assert len(request) == 2 and request[0] == messages[0]
    assert request[1]["content"].startswith(EXCERPT_INTRO)
    assert estimate_tokens(request) + estimate_tokens(json.dumps(tools)) <= window * EXCERPT_WINDOW_SHARE
