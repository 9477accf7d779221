"""Credentials a model writes into a tool call's arguments never reach the disk unmasked."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from hermeslite.agent.factory import build_agent
from hermeslite.config import Settings
from hermeslite.context.messages import call_id, parsed_arguments, tool_calls_of
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.secret_samples import fake
from tests.server import MODEL, Reply

GHP = "ghp_" + fake(36, seed=11)
AWS = "AKIA" + fake(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", seed=12)
EXPORTED = fake(40, seed=13)
PASSWORD = fake(24, seed=14)
SECRETS = [GHP, GHP[4:], AWS, EXPORTED, PASSWORD]


def _all_bytes(root: Path) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in root.rglob("*") if p.is_file()]


async def test_secrets_in_call_arguments_are_masked_on_disk_and_resume_stays_valid(scripted_server, tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir()
    store = SessionStore(data / "sessions.db")
    model = ModelConfig(name=MODEL, api_base=scripted_server.base_url, context_window=100_000)
    settings = replace(Settings(), model=model, memory=replace(Settings().memory, dir=str(data / "memory")))
    agent = build_agent(settings, cwd=tmp_path, interactive=False, llm=LiteLLMClient(model, max_retries=0), store=store)
    scripted_server.enqueue(
        Reply.tool_calls(
            [
                ("terminal", {"command": f'echo ok # curl -H "Authorization: token {GHP}" https://api.github.com'}),
                ("terminal", {"command": f"export GITHUB_TOKEN={EXPORTED}; echo set"}),
                ("terminal", {"command": f"echo ok # aws key {AWS}"}),
                ("terminal", {"command": f"echo ok # mysql -u root -p{PASSWORD} db"}),
            ]
        ),
        Reply.text("done"),
        Reply.text("resumed fine"),
    )
    first = await agent.run_turn("use the tokens")
    assert first.ok and first.saved
    sent = scripted_server.requests[-1]["messages"]
    assert not any(s in str(sent) for s in SECRETS), "the masked call is what later requests replay"
    session_id = agent.session_id
    store.close()

    with sqlite3.connect(data / "sessions.db") as conn:  # the WAL folded into the file, then read whole
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for path, raw in _all_bytes(data):
        for secret in SECRETS:
            assert secret.encode() not in raw, f"{secret[:6]}... reached {path}"

    with SessionStore(data / "sessions.db") as reopened:
        transcript = reopened.load_transcript(session_id)
    calls = [c for m in transcript if m.get("role") == "assistant" for c in tool_calls_of(m)]
    assert len(calls) == 4
    assert all(isinstance(parsed_arguments(c).get("command"), str) for c in calls)
    assert "[REDACTED]" in parsed_arguments(calls[0])["command"]
    answered = {m.get("tool_call_id") for m in transcript if m.get("role") == "tool"}
    assert {call_id(c) for c in calls} <= answered
