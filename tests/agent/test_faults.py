"""Provider faults seen from the agent: failed turns, retry events, overflow stated only in the text."""

from __future__ import annotations

import json
from dataclasses import replace

from hermeslite.agent import events as ev
from hermeslite.agent.factory import build_agent
from hermeslite.agent.turn_repair import INCOMPLETE_REPLY, NO_REPLY
from hermeslite.config import Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.builders import assert_valid
from tests.fake_anthropic import FakeAnthropic
from tests.fake_anthropic.server import Reply as FakeReply
from tests.server import Reply
from tests.summary_requests import answer_summaries


async def test_a_reply_cut_off_fails_the_turn_and_is_kept_marked_incomplete(make_agent, scripted_server):
    agent, rec = make_agent()
    scripted_server.enqueue(Reply.unfinished("The answer is", chunks=2))
    finished = await agent.run_turn("what is it?")
    assert not finished.ok
    assert [e.text for e in rec.of(ev.ErrorEvent)] == [
        "The provider ended the reply without finishing it (openai/test-model closed the stream without a finish "
        "reason)."
    ]
    assert rec.of(ev.ReplyComplete) == []  # never announced as a finished answer
    saved = make_agent.store.load_transcript(agent.session_id)
    assert saved[-1] == {"role": "assistant", "content": f"The answer is\n\n{INCOMPLETE_REPLY}"}
    assert_valid(agent.messages)


async def test_an_empty_reply_fails_the_turn(make_agent, scripted_server):
    agent, rec = make_agent()
    scripted_server.enqueue(*[Reply.empty(usage_only=True)] * 4)  # the first and its three retries
    assert not (await agent.run_turn("hello?")).ok
    assert rec.of(ev.ErrorEvent)[0].text.startswith("The provider returned an empty reply")
    assert agent.messages[-1] == {"role": "assistant", "content": NO_REPLY}


async def test_each_retry_is_announced_before_it_waits(make_agent, scripted_server):
    agent, rec = make_agent()
    scripted_server.enqueue(
        Reply.error(429, "slow down", headers={"Retry-After": "0.2"}),
        Reply.error(503, "overloaded"),
        Reply.text("made it"),
    )
    assert (await agent.run_turn("hi")).ok
    assert [e.text for e in rec.of(ev.Retrying)] == [
        "retrying (1/3) in 0.2 s: rate limited",
        "retrying (2/3) in 0 s: server error (503)",
    ]
    order = [type(e).__name__ for e in rec.events if isinstance(e, (ev.Retrying, ev.TextDelta))]
    assert order[:3] == ["Retrying", "Retrying", "TextDelta"]


async def test_after_model_switch_retries_are_still_announced(make_agent, scripted_server):
    from hermeslite.llm.litellm_client import LiteLLMClient
    from hermeslite.llm.settings import ModelConfig

    agent, rec = make_agent()
    agent.switch_model(
        LiteLLMClient(
            ModelConfig(name="openai/other", api_base=scripted_server.base_url, context_window=50_000),
            retry_base_delay=0.01,
        )
    )
    scripted_server.enqueue(Reply.error(500, "boom"), Reply.text("fine"))
    assert (await agent.run_turn("hi")).ok
    assert [e.reason for e in rec.of(ev.Retrying)] == ["server error (500)"]


async def test_overflow_stated_only_in_the_text_compacts_reactively(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(compression={"memory_flush": False})
    for n in range(6):
        scripted_server.enqueue(Reply.text(f"answer {n}"))
        assert (await agent.run_turn(f"question {n}: " + "detail " * 300)).ok
    scripted_server.enqueue(Reply.stream_error("error code: 413"), Reply.text("made it"))
    finished = await agent.run_turn("go on")
    assert finished.ok, rec.of(ev.ErrorEvent)
    assert rec.of(ev.CompactionStarted)[-1].trigger == "reactive"
    assert agent.messages[-1]["content"] == "made it"


def three_reads(tmp_path) -> list[tuple[str, dict]]:
    for n in range(3):
        (tmp_path / f"{n}.txt").write_text(f"file number {n}\n")
    return [("read_file", {"path": f"{n}.txt"}) for n in range(3)]


def assert_each_call_answered_by_its_own_result(messages: list[dict]) -> None:
    """Three calls with distinct ids, each answered (in order) by the result of reading its own file."""
    (at,) = [i for i, m in enumerate(messages) if m.get("tool_calls")]
    calls = messages[at]["tool_calls"]
    assert len({c["id"] for c in calls}) == 3
    results = messages[at + 1 : at + 4]
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
    for call, result in zip(calls, results, strict=True):
        number = json.loads(call["function"]["arguments"])["path"][0]
        assert f"file number {number}" in result["content"]


async def test_calls_sharing_one_id_are_stored_and_sent_again_with_their_own(make_agent, scripted_server, tmp_path):
    agent, _ = make_agent()
    scripted_server.enqueue(Reply.tool_calls(three_reads(tmp_path), ids=["dup"] * 3), Reply.text("read them"))
    assert (await agent.run_turn("read the three files")).ok
    assert_each_call_answered_by_its_own_result(scripted_server.requests[-1]["messages"])
    assert_each_call_answered_by_its_own_result(make_agent.store.load_transcript(agent.session_id))


async def test_tool_use_ids_repeated_by_an_anthropic_endpoint_are_made_unique(tmp_path, monkeypatch):
    """The fake Messages server rejects repeated tool_use ids as the real API does."""
    monkeypatch.setenv("HERMESLITE_TEST_ANTHROPIC_KEY", "test-key")
    with FakeAnthropic() as server:
        server.enqueue(FakeReply.tool_use(three_reads(tmp_path), ids=["toolu_same"] * 3), FakeReply.say("read them"))
        model = ModelConfig(
            name="anthropic/claude-sonnet-4-5", api_base=server.base_url, api_key_env="HERMESLITE_TEST_ANTHROPIC_KEY"
        )
        settings = replace(Settings(), model=model, memory=replace(Settings().memory, dir=str(tmp_path / "memory")))
        store = SessionStore(tmp_path / "sessions.db")
        agent = build_agent(
            settings, cwd=tmp_path, interactive=False, llm=LiteLLMClient(model, max_retries=0), store=store
        )
        try:
            assert (await agent.run_turn("read the three files")).ok
            assert server.rejections == []
            assert_each_call_answered_by_its_own_result(store.load_transcript(agent.session_id))
        finally:
            store.close()


async def test_a_session_saved_with_calls_sharing_one_id_is_repaired_when_resumed(
    make_agent, scripted_server, tmp_path
):
    """Saved before the repair on receipt: resumed, its calls and their results get distinct ids, in order."""
    calls = three_reads(tmp_path)
    first, _ = make_agent()
    saved = [
        first.messages[0],
        {"role": "user", "content": "read the three files"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "dup", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for name, args in calls
            ],
        },
        *[
            {"role": "tool", "tool_call_id": "dup", "name": "read_file", "content": f"1\tfile number {n}"}
            for n in range(3)
        ],
        {"role": "assistant", "content": "read them"},
    ]
    make_agent.store.replace_transcript(first.session_id, saved)
    resumed, _ = make_agent(session_id=first.session_id)
    scripted_server.enqueue(Reply.text("still here"))
    assert (await resumed.run_turn("and now?")).ok
    assert_each_call_answered_by_its_own_result(scripted_server.requests[-1]["messages"])
