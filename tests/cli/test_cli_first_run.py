"""The first run as a user meets it: the model nobody named is said out loud, and a session whose
key is gone gives way to the configured model instead of failing."""

from __future__ import annotations

from pathlib import Path

from tests.cli_process import env_for, hermeslite, sessions_db
from tests.fake_anthropic import FakeAnthropic
from tests.server import MODEL, ScriptedServer


def test_a_model_picked_by_a_key_is_named_on_stderr(scripted_server: ScriptedServer, home: Path, workdir: Path):
    env = {**env_for(home), "OPENAI_API_KEY": "sk-test"}
    done = hermeslite(["-p", "hello", "--api-base", scripted_server.base_url], home, workdir, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"
    assert done.stderr.splitlines()[0] == (
        "hermeslite: no model configured: using openai/gpt-4o because OPENAI_API_KEY is set "
        "(`hermeslite setup` connects a provider or model.name picks another)"
    )
    assert scripted_server.requests[0]["model"] == "gpt-4o"


def test_a_named_model_says_nothing_about_picking(scripted_server: ScriptedServer, home: Path, workdir: Path):
    done = hermeslite(["-p", "hello", "--model", MODEL, "--api-base", scripted_server.base_url], home, workdir)
    assert done.returncode == 0, done.stderr
    assert "no model configured" not in done.stderr


def test_resuming_a_claude_session_without_its_key_goes_on_with_the_configured_model(
    scripted_server: ScriptedServer, fake_anthropic: FakeAnthropic, home: Path, workdir: Path
):
    claude = ["--model", "anthropic/claude-sonnet-4-5", "--api-base", fake_anthropic.base_url]
    first = hermeslite(["-p", "first", *claude], home, workdir, env={**env_for(home), "ANTHROPIC_API_KEY": "sk-a"})
    assert first.returncode == 0, first.stderr
    config = home / "config" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"model:\n  name: {MODEL}\n  api_base: {scripted_server.base_url}\n")
    with sessions_db(home) as store:
        sid = store.latest_session_id()
    again = hermeslite(["-p", "second", "--resume", sid], home, workdir)
    assert again.returncode == 0, again.stderr
    assert (
        f"hermeslite: session {sid} was recorded with anthropic/claude-sonnet-4-5, which cannot be used here "
        f"(ANTHROPIC_API_KEY is not set); continuing on {MODEL}"
    ) in again.stderr.splitlines()
    assert "401" not in again.stderr and "rejected" not in again.stderr
    assert len(fake_anthropic.exchanges) == 1  # nothing more was sent to Anthropic
    assert [m["content"] for m in scripted_server.requests[0]["messages"] if m["role"] == "user"][-1] == "second"
