"""`hermeslite -p --output-format stream-json` with compression.agent_tool on: a compaction the model asked for
is a real process's events and stored record, trigger "agent", after the reply it followed."""

from __future__ import annotations

import json

from tests.cli.test_cli_json_output import parse_lines, system
from tests.cli_process import hermeslite, model_args, sessions_db
from tests.server import MODEL, Reply
from tests.summary_requests import answer_summaries, is_summary_request, summary_instruction


def test_the_model_s_compaction_is_reported_as_trigger_agent_with_its_focus(scripted_server, tmp_path):
    home, server = tmp_path / "home", scripted_server
    config = tmp_path / "config.yaml"
    config.write_text(
        f"model:\n  name: {MODEL}\n  context_window: 20000\ncompression:\n  agent_tool: true\n  memory_flush: false\n"
    )
    answer_summaries(server)
    paste = " ".join(f"note{n}" for n in range(3_000))  # enough context for the guard to accept the request
    first = hermeslite(["-p", f"read this: {paste}", "--config", str(config), *model_args(server)], home, tmp_path)
    assert first.returncode == 0, first.stderr
    server.enqueue(
        Reply.tool_calls([("context", {"action": "compact", "focus": "the migration plan"})]),
        Reply.text("Sub-task done: the plan is written."),
    )
    done = hermeslite(
        [
            "-p",
            "now plan",
            "--continue",
            "--output-format",
            "stream-json",
            "--config",
            str(config),
            *model_args(server),
        ],
        home,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    events = parse_lines(done.stdout)
    [start] = system(events, "compact_start")
    [boundary] = system(events, "compact_boundary")
    assert (start["trigger"], start["focus"]) == ("agent", "the migration plan")
    assert boundary["compact_metadata"]["trigger"] == "agent"
    assert events[-1]["type"] == "result" and events[-1]["compactions"][0]["trigger"] == "agent"
    order = [e.get("subtype") or e["type"] for e in events]
    last_assistant = max(i for i, e in enumerate(events) if e["type"] == "assistant")
    assert last_assistant < order.index("compact_start") < order.index("compact_boundary") < len(events) - 1
    assert "Sub-task done" in json.dumps(events[last_assistant])

    [summary] = [b for b in server.requests if is_summary_request(b)]
    assert server.requests[-1] is summary and '"the migration plan"' in summary_instruction(summary)
    with sessions_db(home) as store:
        [record] = store.compactions(store.latest_session_id())
    assert (record.trigger, record.focus) == ("agent", "the migration plan")
