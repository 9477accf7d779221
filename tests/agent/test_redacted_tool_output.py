"""A key that a tool prints never reaches the transcript, the session store or the next request."""

from __future__ import annotations

import json

from hermeslite.agent import events as ev
from hermeslite.context.redact import MARK
from tests.secret_samples import vendor_samples
from tests.server import Reply


async def test_env_grep_output_is_redacted_before_it_is_stored_or_sent(
    make_agent, scripted_server, monkeypatch, tmp_path
):
    key = vendor_samples(5)[0]  # a project-scoped OpenAI key
    monkeypatch.setenv("DEMO_SERVICE_API_KEY", key.key)
    (tmp_path / ".env").write_text(f"DEMO_SERVICE_PASSWORD=hunter22-{key.secret[:12]}\nDEBUG=true\n")
    scripted_server.enqueue(
        Reply.tool_calls(
            [("terminal", {"command": "env | grep DEMO_SERVICE_API_KEY"}), ("read_file", {"path": ".env"})]
        ),
        Reply.text("Found it."),
    )
    # Passed on purpose (tools.pass_env): redaction is what keeps it out of the session then.
    agent, rec = make_agent(tools={"pass_env": ["DEMO_SERVICE_API_KEY"]})
    assert (await agent.run_turn("which key is set?")).ok

    shell, dotenv = agent.messages[3]["content"], agent.messages[4]["content"]
    assert f"DEMO_SERVICE_API_KEY=sk-proj-{MARK}" in shell and "[exit code: 0]" in shell
    assert f"DEMO_SERVICE_PASSWORD={MARK}" in dotenv and "DEBUG=true" in dotenv
    stored = json.dumps(make_agent.store.load_transcript(agent.session_id))
    sent = json.dumps(scripted_server.requests[1]["messages"])
    shown = json.dumps([e.content for e in rec.of(ev.ToolFinished)])
    for text in (stored, sent, shown):
        assert key.secret not in text and key.secret[:12] not in text


async def test_passwords_on_command_lines_a_tool_prints_are_redacted(make_agent, scripted_server, tmp_path):
    passwords = ["mysql-pw-4711", "curl pw 0815", "sshpass-pw-42"]
    (tmp_path / "deploy.sh").write_text(
        f"mysqldump -uroot -p{passwords[0]} shop > dump.sql\n"
        f"curl -u 'deploy:{passwords[1]}' https://ci.example/hook\n"
        f"sshpass -p {passwords[2]} ssh deploy@host\n"
        "docker run --rm -u 1000:1000 image\n"
    )
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "cat deploy.sh"})]), Reply.text("Read it."))
    agent, rec = make_agent()
    assert (await agent.run_turn("what does deploy.sh do?")).ok

    shell = agent.messages[3]["content"]
    assert f"-p{MARK} shop" in shell and f"'deploy:{MARK}'" in shell and f"-p {MARK} ssh" in shell
    assert "-u 1000:1000 image" in shell
    stored = json.dumps(make_agent.store.load_transcript(agent.session_id))
    sent = json.dumps(scripted_server.requests[1]["messages"])
    shown = json.dumps([e.content for e in rec.of(ev.ToolFinished)])
    for text in (stored, sent, shown):
        assert not any(p in text for p in passwords)
