"""The agent's summary and memory-flush requests extend the live request, byte for byte, over HTTP."""

from __future__ import annotations

from hermeslite.agent import events as ev
from hermeslite.context.messages import strip_private
from tests.agent.helpers import chat, is_flush_request
from tests.server import Reply
from tests.summary_requests import checkpoint, is_extension_summary, is_serialized_summary, is_summary_request


def answer(server):
    def respond(body):
        if is_summary_request(body):
            return Reply.text(checkpoint())
        if is_flush_request(body):
            return Reply.text("nothing to save")
        return None

    server.responder = respond


def turn_requests(server) -> list[dict]:
    return [b for b in server.requests if not is_summary_request(b) and not is_flush_request(b)]


async def test_the_summary_request_is_the_last_request_sent_plus_the_instruction(make_agent, scripted_server):
    answer(scripted_server)
    agent, rec = make_agent()
    await chat(agent, 6)
    last = turn_requests(scripted_server)[-1]
    await agent.compress_now()
    summaries = [b for b in scripted_server.requests if is_summary_request(b)]
    assert len(summaries) == 1 and is_extension_summary(summaries[0])
    extension = summaries[0]
    # The model's last reply was never part of a request: the summary leaves it out (it is kept).
    assert extension["messages"][:-1] == last["messages"]
    assert extension["tools"] == last["tools"]
    assert rec.of(ev.CompactionFinished)[-1].result.summary.startswith("## Active Task")


async def test_after_a_compaction_the_summary_extends_the_rewritten_transcript(make_agent, scripted_server):
    answer(scripted_server)
    agent, _ = make_agent()
    await chat(agent, 6)
    last = turn_requests(scripted_server)[-1]
    await agent.compress_now()
    compacted = strip_private(agent.messages)
    await agent.compress_now()
    first, second = [b for b in scripted_server.requests if is_summary_request(b)]
    assert first["messages"][:-1] == last["messages"] and is_extension_summary(second)
    assert second["messages"][:-1] == compacted and second["messages"][:-1] != last["messages"]


async def test_after_a_model_switch_the_summary_extends_the_current_transcript(make_agent, scripted_server):
    answer(scripted_server)
    agent, _ = make_agent()
    await chat(agent, 6)
    agent.switch_model(agent.deps.llm)
    last = turn_requests(scripted_server)[-1]
    reply = agent.messages[-1]
    await agent.compress_now()
    extension = [b for b in scripted_server.requests if is_summary_request(b)][-1]
    assert extension["messages"][:-2] == last["messages"] and extension["messages"][-2] == reply


async def test_the_memory_flush_extends_the_live_request_with_the_same_tools(make_agent, scripted_server):
    answer(scripted_server)
    agent, _ = make_agent(memory={"flush_min_turns": 2})
    await chat(agent, 4)
    last = turn_requests(scripted_server)[-1]
    await agent.compress_now()
    flush = next(b for b in scripted_server.requests if is_flush_request(b))
    assert flush["messages"][: len(last["messages"])] == last["messages"]
    assert flush["tools"] == last["tools"]


async def test_after_an_overflow_the_summary_uses_the_serialized_prompt(make_agent, scripted_server):
    answer(scripted_server)
    agent, rec = make_agent(context_window=200_000)
    await chat(agent, 10)
    scripted_server.overflow_above(4_000, limit=12_000)  # a window that leaves a checkpoint room for a summary
    await agent.run_turn("one more")
    assert rec.of(ev.CompactionStarted)[0].trigger == "reactive"
    summaries = [b for b in scripted_server.requests if is_summary_request(b)]
    assert summaries and all(is_serialized_summary(b) for b in summaries)


async def test_every_request_is_recorded_and_the_compaction_reports_its_own(make_agent, scripted_server):
    answer(scripted_server)
    agent, rec = make_agent(memory={"flush_min_turns": 2})
    await chat(agent, 4)
    await agent.compress_now()
    records = make_agent.store.usage(agent.session_id)
    assert [r.kind for r in records].count("turn") == len(turn_requests(scripted_server)) == 4
    assert sorted(r.kind for r in records[4:]) == ["flush", "summary"]
    assert all(r.prompt_tokens > 0 and r.model == "openai/test-model" for r in records)
    spent = rec.of(ev.CompactionFinished)[-1].usage
    assert spent.requests == 2 and spent.prompt_tokens == sum(r.prompt_tokens for r in records[4:])
    assert agent.session_usage().requests == 6
    again, _ = make_agent(session_id=agent.session_id)
    assert again.session_usage() == agent.session_usage()
