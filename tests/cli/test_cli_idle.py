"""`hermeslite -p ... --continue` of a session left for two hours compacts before its first request.

The session is filled in this process, its usage rows stamped two hours ago (the
clock build_agent takes), against the fake Anthropic server, whose own clock is
then moved on past the hour TTL; the next turn is a real process that reads the
gap from the store.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hermeslite.agent.factory import build_agent
from hermeslite.config import load_settings
from hermeslite.llm.litellm_client import LiteLLMClient
from tests.cli_process import env_for, hermeslite, sessions_db
from tests.fake_anthropic import FakeAnthropic, Reply
from tests.summary_requests import checkpoint, is_summary_request

KEY_ENV = "HERMESLITE_TEST_ANTHROPIC_KEY"
ASK = "Please look at the next part of the service and tell me what it does. " * 20
ANSWER = "Here is what that part does, step by step, with the reasons for each step. " * 60
GAP = 2 * 3_600.0


def respond(body: dict) -> Reply:
    return Reply.say(checkpoint("- kept by the fake model.")) if is_summary_request(body) else Reply.say(ANSWER)


class ServerClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_continuing_a_session_left_for_two_hours_compacts_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, work = tmp_path / "home", tmp_path / "project"
    work.mkdir()
    monkeypatch.setenv("HERMESLITE_HOME", str(home))
    monkeypatch.setenv(KEY_ENV, "test-key")
    clock = ServerClock()
    with FakeAnthropic(limit_tokens=32_000, clock=clock) as server:
        server.responder = respond
        config = tmp_path / "config.yaml"
        config.write_text(
            "model:\n"
            "  name: anthropic/claude-sonnet-4-5\n"
            f"  api_base: {server.base_url}\n"
            f"  api_key_env: {KEY_ENV}\n"
            "  context_window: 32000\n"
            "  cache_ttl: 1h\n"
        )
        settings = load_settings(str(config), cwd=work).settings
        store = sessions_db(home)
        agent = build_agent(
            settings,
            cwd=work,
            interactive=False,
            store=store,
            llm=LiteLLMClient(settings.model, max_retries=0),
            clock=lambda: time.time() - GAP,
        )
        turn = 0
        while agent.request_tokens() < 0.9 * agent.deps.compressor.threshold_tokens:
            assert (await agent.run_turn(f"turn {turn}: {ASK}")).ok
            turn += 1
        sid = agent.session_id
        store.release(sid)
        store.close()

        clock.now += GAP  # the server's cache expired while the session sat
        sent = len(server.accepted)
        run = hermeslite(
            [
                "-p",
                f"turn {turn}: back. {ASK}",
                "--continue",
                "--config",
                str(config),
                "--output-format",
                "stream-json",
            ],
            home,
            work,
            env=env_for(home) | {KEY_ENV: "test-key"},
        )
        assert run.returncode == 0, run.stderr
        events = [json.loads(line) for line in run.stdout.splitlines()]
        new = server.accepted[sent:]

    assert server.rejections == []
    assert "Traceback" not in run.stderr
    assert "note: Idle for 2 h, past the prompt cache's 1h lifetime, so the cache is cold" in run.stderr
    [start] = [e for e in events if e.get("subtype") == "compact_start"]
    [boundary] = [e for e in events if e.get("subtype") == "compact_boundary"]
    assert start["trigger"] == boundary["compact_metadata"]["trigger"] == "idle"
    assert is_summary_request(new[0].body) and not is_summary_request(new[-1].body)
    assert new[-1].usage.cache_creation_input_tokens > 0 and new[-1].usage.prompt_tokens < new[0].usage.prompt_tokens
    with sessions_db(home) as store:
        assert [r.trigger for r in store.compactions(sid)] == ["idle"]
