"""Idle compaction through the real agent loop, litellm's Anthropic path and the fake Messages server.

The server's prompt cache and the agent's idle measure run on one fake clock,
so a gap longer than the cache's TTL expires the cached prefix on the server
exactly as the agent assumes it has, and no test waits. The sessions use the
hour TTL (a cold write costs 2x input) and fill to 90% of the threshold, where
a compaction with a model summary pays (see agent/idle.py); at the 5-minute
TTL (1.25x) one does not, and only a checkpoint built by code does.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent.factory import build_agent
from hermeslite.agent.flush import FLUSH_INSTRUCTION
from hermeslite.config import Settings
from hermeslite.context.handoff import OPEN
from hermeslite.context.refill import REFILL_LIMIT, with_refill_record
from hermeslite.headless_json import JsonPrinter, OutputChoice
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.builders import assert_valid
from tests.fake_anthropic import FakeAnthropic, Reply
from tests.recorder import Recorder
from tests.summary_requests import checkpoint, is_summary_request

KEY_ENV = "HERMESLITE_TEST_ANTHROPIC_KEY"
MODEL = "anthropic/claude-sonnet-4-5"
WINDOW = 32_000
FULL = 0.9  # of the threshold: the compacted request is then under half of it
ASK = "Please look at the next part of the service and tell me what it does. " * 20
ANSWER = "Here is what that part does, step by step, with the reasons for each step. " * 60


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def respond(body: dict) -> Reply:
    if is_summary_request(body):
        return Reply.say(checkpoint("- kept by the fake model."))
    if FLUSH_INSTRUCTION in str(body["messages"][-1]["content"]):
        return Reply.say("nothing to save")
    return Reply.say(ANSWER)


def is_turn(body: dict) -> bool:
    return not is_summary_request(body) and FLUSH_INSTRUCTION not in str(body["messages"][-1]["content"])


@pytest.fixture
def window() -> int:
    return WINDOW


class Session:
    """An agent on one store and one fake server, all on one clock; `agent()` opens (or resumes) it."""

    def __init__(self, folder: Path, server: FakeAnthropic, clock: Clock, model: dict, compression: dict) -> None:
        self.folder, self.server, self.clock = folder, server, clock
        config = ModelConfig(
            name=MODEL, api_base=server.base_url, api_key_env=KEY_ENV, context_window=server.limit_tokens, **model
        )
        base = Settings()
        self.settings = replace(
            base,
            model=config,
            compression=replace(base.compression, **compression),
            memory=replace(base.memory, dir=str(folder / "memory")),
        )
        self.store = SessionStore(folder / "sessions.db")
        self.recorder = Recorder()

    def agent(self, session_id: str | None = None):
        llm = LiteLLMClient(self.settings.model, max_retries=0)
        agent = build_agent(
            self.settings,
            cwd=self.folder,
            interactive=False,
            store=self.store,
            llm=llm,
            session_id=session_id,
            clock=self.clock,
        )
        agent.subscribe(self.recorder)
        return agent

    async def fill(self, agent, share: float) -> int:
        """Turns, a minute apart, until the next request is at least `share` of the threshold; none compacts."""
        turn = 0
        while agent.request_tokens() < share * agent.deps.compressor.threshold_tokens:
            assert turn < 40
            self.clock.now += 60
            assert (await agent.run_turn(f"turn {turn}: {ASK}")).ok
            turn += 1
        assert self.recorder.of(ev.CompactionStarted) == []
        return turn

    def started(self) -> list[str]:
        return [e.trigger for e in self.recorder.of(ev.CompactionStarted)]


@pytest.fixture
def model() -> dict:
    return {"cache_ttl": "1h"}


@pytest.fixture
def compression() -> dict:
    return {}


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: dict, compression: dict, window: int):
    monkeypatch.setenv(KEY_ENV, "test-key")
    clock = Clock()
    with FakeAnthropic(limit_tokens=window, clock=clock) as server:
        server.responder = respond
        s = Session(tmp_path, server, clock, model, compression)
        yield s
        s.store.close()


def idle_notices(session: Session) -> list[str]:
    return [n.text for n in session.recorder.of(ev.Notice) if n.text.startswith("Idle for")]


async def test_after_a_gap_past_the_ttl_the_request_sent_is_the_compacted_one(session: Session) -> None:
    agent = session.agent()
    turns = await session.fill(agent, FULL)
    before = agent.request_tokens()
    sent = len(session.server.accepted)

    session.clock.now += 61 * 60  # past the 1h TTL: the server's cache has expired too
    assert (await agent.run_turn(f"turn {turns}: back after a break. {ASK}")).ok

    assert session.started() == ["idle"]
    [finished] = session.recorder.of(ev.CompactionFinished)
    assert finished.trigger == "idle" and finished.result.changed and not finished.result.fallback_used
    assert finished.tokens_after < before / 2
    [notice] = idle_notices(session)
    assert notice.startswith("Idle for 1 h 1 min, past the prompt cache's 1h lifetime, so the cache is cold")

    new = session.server.accepted[sent:]
    assert session.server.rejections == []
    [summary] = [x for x in new if is_summary_request(x.body)]
    turn = [x for x in new if is_turn(x.body)]
    assert new.index(summary) < new.index(turn[0])
    # The summary reads the cold prefix once, unmarked: nothing will read it again, so nothing is written.
    assert "cache_control" not in json.dumps(summary.body)
    assert summary.usage.cache_creation_input_tokens == summary.usage.cache_read_input_tokens == 0
    # The turn request carries the checkpoint, not the old transcript, and writes it to the cache.
    first = turn[0]
    before_gap = session.server.accepted[sent - 1]
    assert OPEN in str(first.body["messages"]) and len(first.body["messages"]) < len(before_gap.body["messages"])
    assert f"turn {turns}: back after a break" in str(first.body["messages"][-1])
    assert first.usage.cache_read_input_tokens == 0 and first.usage.cache_creation_input_tokens > 0
    assert first.usage.ephemeral_1h_input_tokens == first.usage.cache_creation_input_tokens
    assert first.usage.prompt_tokens < summary.usage.prompt_tokens / 2
    assert_valid(agent.messages)
    assert [r.trigger for r in session.store.compactions(agent.session_id)] == ["idle"]

    # Right after it, the cache is warm again: the next turn reads it, with no compaction.
    session.clock.now += 60
    assert (await agent.run_turn(f"turn {turns + 1}: {ASK}")).ok
    assert session.started() == ["idle"]
    assert session.server.accepted[-1].usage.cache_read_input_tokens > 0


async def test_a_gap_within_the_ttl_reads_the_cache_and_does_not_compact(session: Session) -> None:
    agent = session.agent()
    turns = await session.fill(agent, FULL)
    session.clock.now += 50 * 60
    assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    assert session.started() == []
    last = session.server.accepted[-1]
    assert OPEN not in str(last.body["messages"]) and last.usage.cache_read_input_tokens > 0


async def test_under_the_share_an_idle_session_does_not_compact(session: Session) -> None:
    agent = session.agent()
    turns = await session.fill(agent, 0.3)
    assert agent.request_tokens() < 0.7 * agent.deps.compressor.threshold_tokens
    session.clock.now += 3 * 3_600
    assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    assert session.started() == []
    assert session.server.accepted[-1].usage.cache_read_input_tokens == 0  # cold, and not worth compacting


@pytest.mark.parametrize("model", [{"cache_ttl": "5m"}])
async def test_at_the_5m_ttl_a_summary_costs_more_than_the_cold_write_it_saves(session: Session) -> None:
    """A cold prefix costs 1.25x; summarizing it costs 1x, plus the compacted request's write: so no."""
    agent = session.agent()
    turns = await session.fill(agent, FULL)
    session.clock.now += 10 * 60
    assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    assert session.started() == [] and idle_notices(session) == []
    cold = session.server.accepted[-1]
    assert cold.usage.cache_read_input_tokens == 0 and cold.usage.ephemeral_5m_input_tokens > 0


@pytest.mark.parametrize(
    ("model", "compression"), [({"prompt_caching": "off"}, {}), ({"cache_ttl": "1h"}, {"idle_compact": "off"})]
)
async def test_with_no_cache_or_idle_compact_off_a_long_gap_changes_nothing(session: Session) -> None:
    agent = session.agent()
    turns = await session.fill(agent, FULL)
    session.clock.now += 8 * 3_600
    assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    assert session.started() == []


async def test_a_session_resumed_the_next_morning_compacts_before_its_first_request(session: Session) -> None:
    agent = session.agent()
    turns = await session.fill(agent, FULL)
    sid = agent.session_id
    session.store.release(sid)

    session.clock.now += 9 * 3_600  # left overnight; a new process opens it (--resume)
    resumed = session.agent(sid)
    sent = len(session.server.accepted)
    assert (await resumed.run_turn(f"turn {turns}: good morning. {ASK}")).ok

    assert session.started() == ["idle"]
    [notice] = idle_notices(session)
    assert notice.startswith("Idle for 9 h,")
    first_turn = next(x for x in session.server.accepted[sent:] if is_turn(x.body))
    assert OPEN in str(first_turn.body["messages"])
    assert [r.trigger for r in session.store.compactions(sid)] == ["idle"]


async def test_headless_json_and_the_store_name_the_idle_trigger(session: Session) -> None:
    agent = session.agent()
    out = io.StringIO()
    agent.subscribe(JsonPrinter(out, io.StringIO(), OutputChoice("stream-json", False)))
    turns = await session.fill(agent, FULL)
    out.seek(0)
    out.truncate()
    session.clock.now += 3 * 3_600
    assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    system = [e for e in map(json.loads, out.getvalue().splitlines()) if e["type"] == "system"]
    [notice] = [e for e in system if e["subtype"] == "notice" and e["message"].startswith("Idle for 3 h,")]
    [start] = [e for e in system if e["subtype"] == "compact_start"]
    [boundary] = [e for e in system if e["subtype"] == "compact_boundary"]
    assert system.index(notice) < system.index(start) < system.index(boundary)
    assert start["trigger"] == boundary["compact_metadata"]["trigger"] == "idle"
    assert [r.trigger for r in session.store.compactions(agent.session_id)] == ["idle"]


async def test_the_refill_guard_holds_idle_compaction_back_too(session: Session) -> None:
    agent = session.agent()
    turns = await session.fill(agent, FULL)
    session.clock.now += 2 * 3_600
    assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    assert session.started() == ["idle"]
    # The guard has stopped automatic compaction (three refills in a row, recorded on the checkpoint).
    agent.adopt_transcript(with_refill_record(agent.messages, REFILL_LIMIT))
    while agent.request_tokens() < FULL * agent.deps.compressor.threshold_tokens:
        turns += 1
        session.clock.now += 60
        assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    session.clock.now += 2 * 3_600
    assert (await agent.run_turn(f"turn {turns + 1}: {ASK}")).ok
    assert session.started() == ["idle"]
    assert any(n.text.startswith("Automatic compaction is paused") for n in session.recorder.of(ev.Notice))


@pytest.mark.parametrize(("model", "compression"), [({"cache_ttl": "5m"}, {"min_summary_tokens": 12_000})])
async def test_a_checkpoint_built_by_code_pays_even_at_the_5m_ttl(session: Session) -> None:
    """The tiny-window path (a window that leaves the checkpoint too little for a model summary builds
    it from recorded facts) holds for an idle compaction: no summary or memory-flush request goes out,
    and with none to pay for, compacting a cold cache pays at either TTL. The floor is raised here
    rather than the window shrunk, so the session has room for the turns that fill it."""
    agent = session.agent()
    turns = await session.fill(agent, 0.75)
    agent.measure_for(agent.deps.compressor)
    assert agent.deps.compressor.plan(agent.messages, force=True).small_window
    sent = len(session.server.accepted)
    session.clock.now += 10 * 60
    assert (await agent.run_turn(f"turn {turns}: {ASK}")).ok
    assert session.started() == ["idle"]
    [finished] = session.recorder.of(ev.CompactionFinished)
    assert finished.result.changed and finished.result.fallback_used
    new = session.server.accepted[sent:]
    assert len(new) == 1 and is_turn(new[0].body) and OPEN in str(new[0].body["messages"])
