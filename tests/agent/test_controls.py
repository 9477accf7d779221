"""The compaction controls through the real agent, litellm and store: preview, undo, edit, handoff."""

from __future__ import annotations

import json

from hermeslite.agent import controls
from hermeslite.agent import events as ev
from tests.agent.helpers import chat
from tests.builders import assert_valid
from tests.server import MODEL, Reply
from tests.summary_requests import answer_summaries, checkpoint, is_summary_request


def stored(make_agent, agent) -> tuple:
    store = make_agent.store
    return (
        store.load_transcript(agent.session_id),
        store.generation(agent.session_id),
        len(store.compactions(agent.session_id)),
        store.undo_point(agent.session_id),
    )


async def test_preview_sends_nothing_and_changes_nothing(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent(memory={"flush_min_turns": 1}, compression={"memory_flush": True})
    await chat(agent, 6)
    requests, events, messages, saved = (
        len(scripted_server.requests),
        len(rec.events),
        list(agent.messages),
        stored(make_agent, agent),
    )
    report = controls.preview(agent, "database schema")
    assert len(scripted_server.requests) == requests and len(rec.events) == events
    assert agent.messages == messages and stored(make_agent, agent) == saved
    text = "\n".join(report.lines())
    assert "Preview of /compress database schema" in text and f"Now: {len(messages)} messages" in text
    assert "Model call: yes, a summary request" in text and "Memory flush: yes" in text
    assert report.preview.summarized.count > 0 and report.preview.estimated_after < report.preview.tokens_before


async def test_uncompress_restores_the_transcript_and_keeps_later_turns(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, rec = make_agent()
    await chat(agent, 6)
    before = [json.loads(json.dumps(m)) for m in agent.messages[1:]]
    await agent.compress_now()
    compacted = len(agent.messages)
    await chat(agent, 1, text="after the compaction")
    report = controls.uncompress(agent)
    assert (
        report.done and f"→ {len(before) + 3} messages" in report.text and "the 2 messages added since" in report.text
    )
    assert agent.messages[1:] == before + agent.messages[len(before) + 1 :]
    assert [m["content"] for m in agent.messages[-2:]] == ["turn 0: after the compaction", "ok"]
    assert len(agent.messages) == len(before) + 1 + 2 and compacted < len(before)
    assert agent.deps.compressor.previous_summary is None  # the iterative state follows the transcript
    assert rec.of(ev.PressureChanged)[-1].pressure.tokens == agent.request_tokens()
    assert_valid(agent.messages)
    again = controls.uncompress(agent)
    assert not again.done and again.text.startswith("Nothing undone: nothing to undo")


async def test_uncompress_after_a_restart(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, _ = make_agent()
    await chat(agent, 6)
    before = [json.loads(json.dumps(m)) for m in agent.messages[1:]]
    await agent.compress_now()
    restarted, _ = make_agent(session_id=agent.session_id)
    assert controls.uncompress(restarted).done
    assert restarted.messages[1:] == before
    reopened, _ = make_agent(session_id=agent.session_id)
    assert reopened.messages[1:] == before


async def test_an_edited_checkpoint_is_what_the_model_and_the_next_session_read(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, _ = make_agent()
    await chat(agent, 6)
    await agent.compress_now()
    assert controls.checkpoint(agent).text.startswith("## Active Task")
    edited = checkpoint().replace("## Goal\nNone.", "## Goal\nMigrate the DB to PostgreSQL 16 (EDITED).")
    edit = controls.edit_checkpoint(agent, edited)
    assert edit.accepted
    scripted_server.enqueue(Reply.text("noted"))
    await agent.run_turn("what is the goal?")
    sent = json.dumps(scripted_server.requests[-1]["messages"])
    assert "PostgreSQL 16 (EDITED)" in sent
    restarted, _ = make_agent(session_id=agent.session_id)
    assert "PostgreSQL 16 (EDITED)" in controls.checkpoint(restarted).text


async def test_a_refused_edit_changes_nothing(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, _ = make_agent()
    await chat(agent, 6)
    await agent.compress_now()
    messages, saved = list(agent.messages), stored(make_agent, agent)
    edit = controls.edit_checkpoint(agent, "no headings at all")
    assert not edit.accepted and "lacks the section(s)" in edit.reason
    assert agent.messages == messages and stored(make_agent, agent) == saved


async def test_handoff_seeds_a_new_session_and_leaves_the_old_one(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, _ = make_agent()
    await chat(agent, 5)
    agent.deps.todos.write([{"id": "1", "content": "port the CLI to click", "status": "in_progress"}])
    await chat(agent, 1, text="LATEST: now port the CLI to click")
    old = stored(make_agent, agent)
    report = await controls.hand_off(agent, "cli")
    summary_prompt = [b for b in scripted_server.requests if is_summary_request(b)][-1]["messages"][0]["content"]
    assert 'FOCUS: the user asked to keep everything about "cli"' in summary_prompt
    assert report.session_id and f"Session {agent.session_id} stays saved" in report.text
    assert stored(make_agent, agent) == old
    store = make_agent.store
    assert store.get_session(report.session_id).parent_id == agent.session_id
    child, _ = make_agent(session_id=report.session_id)
    assert [m["role"] for m in child.messages] == ["system", "user", "assistant"]
    assert child.messages[1]["content"].startswith("[HANDOFF SUMMARY")
    assert "turn 0: LATEST: now port the CLI to click" in child.messages[1]["content"]
    assert "port the CLI to click" in json.dumps(child.messages) and child.deps.todos.active()
    assert_valid(child.messages)
    scripted_server.enqueue(Reply.text("continuing"))
    assert (await child.run_turn("go on")).ok


async def test_undo_waits_until_the_session_is_saved_and_then_loses_nothing(scripted_server, tmp_path):
    from dataclasses import replace

    from hermeslite.agent.factory import build_agent
    from hermeslite.config import Settings
    from hermeslite.llm.litellm_client import LiteLLMClient
    from hermeslite.llm.settings import ModelConfig
    from hermeslite.store.sessions import SessionStore
    from tests.faults import fill, small_disk

    answer_summaries(scripted_server)
    with small_disk(tmp_path / "disk", 2048) as disk:
        store = SessionStore(disk / "sessions.db")
        model = ModelConfig(name=MODEL, api_base=scripted_server.base_url, context_window=100_000)
        settings = replace(Settings(), model=model, memory=replace(Settings().memory, dir=str(tmp_path / "memory")))
        agent = build_agent(
            settings, cwd=tmp_path, interactive=False, llm=LiteLLMClient(model, max_retries=0), store=store
        )
        await chat(agent, 6)
        before = copy_of(agent.messages[1:])
        await agent.compress_now()
        filler = fill(disk)
        assert not (await agent.run_turn("typed while the disk was full")).saved
        report = controls.uncompress(agent)
        assert not report.done and "not fully saved yet" in report.text
        filler.unlink()
        assert (await agent.run_turn("and after it was freed")).saved
        assert controls.uncompress(agent).done
        contents = [m["content"] for m in agent.messages[1:]]
        assert agent.messages[1 : len(before) + 1] == before
        assert contents[len(before) :] == ["typed while the disk was full", "ok", "and after it was freed", "ok"]
        store.close()


def copy_of(messages: list[dict]) -> list[dict]:
    return json.loads(json.dumps(messages))
