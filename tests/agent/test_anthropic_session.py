"""A long session through litellm's real Anthropic path, against the strict fake Messages server.

Tool calls, preflight compactions and their summary and memory-flush requests
all go over HTTP as Anthropic requests: the server rejects anything the real
API would, and bills every request against its modelled prompt cache.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent.factory import build_agent
from hermeslite.agent.flush import FLUSH_INSTRUCTION
from hermeslite.agent.memory_notes import HEADING as NOTES_HEADING
from hermeslite.config import Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.builders import assert_valid
from tests.fake_anthropic import FakeAnthropic, Reply
from tests.fake_anthropic.blocks import flatten
from tests.recorder import Recorder
from tests.summary_requests import checkpoint, is_extension_summary, is_summary_request

KEY_ENV = "HERMESLITE_TEST_ANTHROPIC_KEY"
WINDOW = 16_000
CHECKPOINT = checkpoint("- kept by the fake model.")
NOTE = "Reads code best in small steps."
FLUSH_THINKS = 0.3
ASK = "Please look at the next part of the service and tell me what it does. " * 12


def last_user_text(body: dict) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return " ".join(str(block.get("text") or "") for block in content if block.get("type") == "text")


def answers_tool_results(body: dict) -> bool:
    content = body["messages"][-1]["content"]
    return isinstance(content, list) and any(block.get("type") == "tool_result" for block in content)


def respond(body: dict, notes: bool = True) -> Reply:
    """Checkpoints for summaries (with a memory note when asked for notes and `notes`), nothing to
    save for flushes (after a pause), a file read every third turn, else prose."""
    text = last_user_text(body)
    if is_summary_request(body):
        asked = f"## {NOTES_HEADING}" in text
        return Reply.say(f"{CHECKPOINT}\n## {NOTES_HEADING}\n- user: {NOTE}" if asked and notes else CHECKPOINT)
    if FLUSH_INSTRUCTION in text:
        time.sleep(FLUSH_THINKS)  # a summary sent beside the flush would arrive before its cache write
        return Reply.say("nothing to save")
    if answers_tool_results(body):
        return Reply.say("That module wires the retry policy into the HTTP client. " * 8)
    turn = int(m.group(1)) if (m := re.search(r"turn (\d+):", text)) else 0
    if turn % 3 == 0:
        return Reply.tool_use([("read_file", {"path": f"module_{turn}.py"})], text="Reading it.")
    return Reply.say("Here is what that part does, step by step. " * 20)


def is_turn(body: dict) -> bool:
    return not is_summary_request(body) and FLUSH_INSTRUCTION not in last_user_text(body)


def assert_extends_the_last_turn_request(exchanges: list) -> int:
    """Each summary request is the last turn request before it, block for block, plus the instruction,
    and reads all of that request from the cache: only the instruction is billed unread. Returns how
    many summaries there were."""
    summaries = 0
    for i, x in enumerate(exchanges):
        if not is_summary_request(x.body):
            continue
        summaries += 1
        last = next(t for t in reversed(exchanges[:i]) if is_turn(t.body))
        sent, extended = flatten(last.body), flatten(x.body)
        shared = len(sent.blocks)
        assert len(extended.blocks) == shared + 1 and extended.hashes[shared - 1] == sent.hashes[-1]
        assert x.usage.cache_read_input_tokens == sent.total
        assert x.usage.cache_creation_input_tokens + x.usage.input_tokens == extended.blocks[-1].tokens
    return summaries


@pytest.fixture
def flush() -> bool:
    """Whether compactions run the memory flush first; a test parametrizes it to False."""
    return True


@pytest.fixture
def compression() -> dict:
    """Compression settings besides the defaults; a test parametrizes it."""
    return {}


@pytest.fixture
def replies():
    """The fake model; a test parametrizes it."""
    return respond


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flush: bool, compression: dict, replies):
    monkeypatch.setenv(KEY_ENV, "test-key")
    for n in range(40):
        (tmp_path / f"module_{n}.py").write_text(f"def handler_{n}(request):\n    return request  # step {n}\n" * 40)
    with FakeAnthropic(limit_tokens=WINDOW) as server:
        server.responder = replies
        model = ModelConfig(
            name="anthropic/claude-sonnet-4-5", api_base=server.base_url, api_key_env=KEY_ENV, context_window=WINDOW
        )
        base = Settings()
        settings = replace(
            base,
            model=model,
            compression=replace(base.compression, memory_flush=flush, **compression),
            memory=replace(base.memory, dir=str(tmp_path / "memory"), flush_min_turns=3),
        )
        store = SessionStore(tmp_path / "sessions.db")
        llm = LiteLLMClient(model, max_retries=0)
        agent = build_agent(settings, cwd=tmp_path, interactive=False, llm=llm, store=store)
        recorder = Recorder()
        agent.subscribe(recorder)
        yield agent, recorder, server, store
        store.close()


async def chat_until_two_compactions(agent, rec) -> int:
    """Turns of ASK until two compactions have changed the transcript; returns how many turns that took."""
    turn = 0
    while len([c for c in rec.of(ev.CompactionFinished) if c.result.changed]) < 2:
        assert turn < 60, "two compactions should have happened by now"
        assert (await agent.run_turn(f"turn {turn}: {ASK}")).ok, rec.of(ev.ErrorEvent)
        turn += 1
    return turn


async def test_a_long_session_with_tools_and_two_compactions_reads_the_cache(session) -> None:
    agent, rec, server, _store = session
    turn = await chat_until_two_compactions(agent, rec)
    assert (await agent.run_turn(f"turn {turn}: one more question after the compactions")).ok

    assert server.rejections == []
    assert_valid(agent.messages)
    assert any(e.name == "read_file" and not e.is_error for e in rec.of(ev.ToolFinished))
    compactions = [c for c in rec.of(ev.CompactionFinished) if c.result.changed]
    assert all(c.trigger == "preflight" and not c.result.fallback_used for c in compactions)

    # Summaries were asked as extensions of the last turn request and read all of it from the cache.
    summaries = [x for x in server.accepted if is_summary_request(x.body)]
    assert summaries and all(is_extension_summary(x.body) for x in summaries)
    assert assert_extends_the_last_turn_request(server.accepted) == len(summaries)
    # One request per compaction: the memory notes came with the checkpoint, no flush was sent, the
    # note was saved and the checkpoint in the transcript does not carry it.
    assert not any(FLUSH_INSTRUCTION in last_user_text(x.body) for x in server.accepted)
    assert all(f"## {NOTES_HEADING}" in last_user_text(x.body) for x in summaries)
    assert all(c.usage.requests == 1 and c.usage.cache_hit_rate >= 0.8 for c in compactions)
    assert NOTE in agent.deps.memory.snapshot() and NOTE in str(agent.messages[0])  # the system prompt's memory
    assert NOTES_HEADING not in str(agent.messages[1:]) and NOTE not in str(agent.messages[1:])

    # Ordinary turns read the previous turn's prefix, and the store agrees with the server.
    turns = [x for x in server.accepted if is_turn(x.body)]
    assert sum(x.usage.cache_read_input_tokens > 0 for x in turns) >= len(turns) - 4
    recorded = agent.session_usage()
    assert recorded.requests == len(server.accepted)
    assert recorded.cache_read_tokens == sum(x.usage.cache_read_input_tokens for x in server.accepted)
    assert recorded.cache_write_tokens == sum(x.usage.cache_creation_input_tokens for x in server.accepted)
    assert recorded.priced and recorded.cost > 0
    assert recorded.cache_hit_rate > 0.6


def respond_without_notes(body: dict) -> Reply:
    return respond(body, notes=False)


@pytest.mark.parametrize("replies", [respond_without_notes])
async def test_a_summary_reply_without_notes_is_followed_by_the_flush(session) -> None:
    """A model that ignores the notes request still gets its chance to save memories: the separate
    flush, right after the summary, on the turns as they were."""
    agent, rec, server, _ = session
    await chat_until_two_compactions(agent, rec)
    assert server.rejections == []
    summaries = [x for x in server.accepted if is_summary_request(x.body)]
    flushes = [
        b
        for a, b in pairwise(server.accepted)
        if is_summary_request(a.body) and FLUSH_INSTRUCTION in last_user_text(b.body)
    ]
    assert summaries and len(flushes) == len(summaries)
    compactions = [c for c in rec.of(ev.CompactionFinished) if c.result.changed]
    assert all(c.usage.requests == 2 for c in compactions)
    assert "Here is what that part does" in str(flushes[0].body["messages"])  # the turns, not the checkpoint


@pytest.mark.parametrize("flush", [False])
async def test_with_no_memory_flush_the_summary_still_reads_all_but_its_instruction(session) -> None:
    agent, rec, server, _ = session
    await chat_until_two_compactions(agent, rec)
    assert server.rejections == []
    assert not any(FLUSH_INSTRUCTION in last_user_text(x.body) for x in server.accepted)
    assert not any(NOTES_HEADING in last_user_text(x.body) for x in server.accepted)
    assert assert_extends_the_last_turn_request(server.accepted) >= 2
    for x in server.accepted:
        if is_summary_request(x.body):
            assert x.usage.cache_read_input_tokens >= 0.9 * x.usage.prompt_tokens


LONG_REPLY = "The handler validates the request, retries twice, then logs the outcome. " * 80


def long_answers(body: dict) -> Reply:
    """Every turn answered at length (~1,500 tokens), so the model's last reply outweighs the tail budget."""
    return Reply.say(CHECKPOINT) if is_summary_request(body) else Reply.say(LONG_REPLY)


@pytest.mark.parametrize(
    ("flush", "compression", "replies"), [(False, {"protect_last_n": 1, "target_ratio": 0.05}, long_answers)]
)
async def test_the_reply_no_request_carried_is_kept_so_the_summary_extends_the_last_turn_request(session) -> None:
    """With a one-message minimum tail and a small tail budget, the tail walk stops at the new user message
    and would summarize the model's last reply, which no request has carried yet: the summary would then
    extend the current transcript and write that reply to the cache. The reply fits the tail cap, so the
    cut moves back to where the last turn request ended: the reply stays verbatim and the summary reads
    everything but its instruction from the cache."""
    agent, rec, server, _ = session
    turn = 0
    while not [c for c in rec.of(ev.CompactionFinished) if c.result.changed]:
        assert turn < 30, "a compaction should have happened by now"
        assert (await agent.run_turn(f"turn {turn}: {ASK}")).ok, rec.of(ev.ErrorEvent)
        turn += 1
    assert server.rejections == []
    assert rec.of(ev.CompactionStarted)[0].trigger == "preflight"
    assert assert_extends_the_last_turn_request(server.accepted) == 1
    # After the checkpoint: the reply no request had carried, verbatim, then the ask it preceded.
    kept_reply, ask = agent.messages[2], agent.messages[3]
    assert kept_reply["role"] == "assistant" and kept_reply["content"] == LONG_REPLY
    assert ask == {"role": "user", "content": f"turn {turn - 1}: {ASK}"}
    assert_valid(agent.messages)
