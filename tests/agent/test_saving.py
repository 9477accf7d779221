"""A save that fails costs the save, not the conversation: said once, retried in order, nothing reordered."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hermeslite.agent import events as ev
from hermeslite.agent.factory import build_agent
from hermeslite.config import Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.faults import fill, small_disk
from tests.recorder import Recorder
from tests.server import MODEL, Reply


async def test_a_full_disk_mid_session_keeps_the_conversation_and_catches_up(scripted_server, tmp_path: Path):
    with small_disk(tmp_path / "disk", 1024) as disk:
        store = SessionStore(disk / "sessions.db")
        model = ModelConfig(name=MODEL, api_base=scripted_server.base_url, context_window=100_000)
        settings = replace(Settings(), model=model, memory=replace(Settings().memory, dir=str(tmp_path / "memory")))
        llm = LiteLLMClient(model, max_retries=0)
        agent = build_agent(settings, cwd=tmp_path, interactive=False, llm=llm, store=store)
        rec = Recorder()
        agent.subscribe(rec)
        scripted_server.enqueue(
            Reply.text("saved fine"),
            Reply.text("only on screen"),
            Reply.tool_calls([("terminal", {"command": "echo still going"})]),
            Reply.text("tool turn done"),
            Reply.text("saved again"),
        )
        assert (await agent.run_turn("one")).saved

        filler = fill(disk)
        second = await agent.run_turn("two")
        assert second.ok and not second.saved
        assert "only on screen" in rec.text()
        third = await agent.run_turn("three")  # with tools: several more failed saves
        assert third.ok and not third.saved
        errors = [e.text for e in rec.of(ev.ErrorEvent)]
        assert len(errors) == 1 and f"session {agent.session_id} is not saved" in errors[0]
        assert "is full" in errors[0]

        filler.unlink()
        fourth = await agent.run_turn("four")
        assert fourth.ok and fourth.saved
        assert rec.of(ev.Notice)[-1].text == f"Session {agent.session_id} is saved again."
        store.close()
        with SessionStore(disk / "sessions.db") as reopened:
            assert reopened.load_transcript(agent.session_id)[1:] == agent.messages[1:]
