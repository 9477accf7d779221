"""`hermeslite -p --output-format json|stream-json` as a CI wrapper runs it: a real process, HTTP, the store.

The stream is checked the way a consumer reads it: every stdout line parsed as
JSON, events picked out by Claude Code's `type`/`subtype` names, and the reply
rebuilt from the `--include-partial` text deltas, which must equal what `json`
mode reports as `result`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.hook_scripts import on, script
from tests.hostile_text import HOSTILE_COMMAND, HOSTILE_REPLY, is_control
from tests.mcp_servers import stdio_entry
from tests.patience import patience
from tests.server import MODEL, Reply, ScriptedServer
from tests.summary_requests import answer_summaries

WINDOW = 6_000  # small enough that the second run's history is compacted before it is sent
LONG_REPLY = "".join(f"line {n} of a reply far longer than a pipe holds\n" for n in range(8_000))  # ~400 kB
USAGE_KEYS = {"input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"}


def words(tag: str, count: int) -> str:
    return " ".join(f"{tag}{n}" for n in range(count))


def small_window_config(folder: Path) -> Path:
    path = folder / "config.yaml"
    path.write_text(f"model:\n  name: {MODEL}\n  context_window: {WINDOW}\nagent:\n  max_retries: 2\n")
    return path


def parse_lines(stdout: str) -> list[dict[str, Any]]:
    """Every line of stdout as one JSON object: a loose line of text fails here, naming it."""
    lines = stdout.splitlines()
    assert lines, "nothing on stdout"
    events = []
    for number, line in enumerate(lines, 1):
        try:
            event = json.loads(line)
        except ValueError as exc:
            raise AssertionError(f"stdout line {number} is not JSON: {line!r}") from exc
        assert isinstance(event, dict) and isinstance(event.get("type"), str), line
        events.append(event)
    return events


def system(events: list[dict[str, Any]], subtype: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "system" and e.get("subtype") == subtype]


def rebuilt_reply(events: list[dict[str, Any]]) -> str:
    """What a wrapper shows as the answer: the text deltas of the last streamed assistant message."""
    messages: list[str] = []
    for event in events:
        if event["type"] != "stream_event":
            continue
        inner = event["event"]
        if inner["type"] == "message_start":
            messages.append("")
        elif inner["type"] == "content_block_delta" and inner["delta"]["type"] == "text_delta":
            messages[-1] += inner["delta"]["text"]
    return messages[-1] if messages else ""


def build_history(server: ScriptedServer, home: Path, cwd: Path, config: Path) -> None:
    """A first run (text mode) whose history the next run must compact to fit WINDOW."""
    server.enqueue(Reply.text(words("a", 1_300)))
    first = hermeslite(["-p", words("p", 1_300), "--config", str(config), *model_args(server)], home, cwd)
    assert first.returncode == 0, first.stderr


def script_the_busy_turn(server: ScriptedServer, final: str) -> None:
    """A turn with a failed request that is retried, a command that runs, one that is refused
    (network, which no one can approve headless), then the reply in several chunks."""
    server.enqueue(
        Reply.error(500, "upstream hiccup", type="server_error"),
        Reply.tool_calls([("terminal", {"command": "echo hello-from-tool"})], text="Looking first.", ids=["echo"]),
        Reply.tool_calls([("terminal", {"command": "curl -s https://example.com"})], ids=["curl"]),
        Reply.text(final, chunks=5),
    )


def test_stream_json_is_json_only_and_tells_the_whole_run(scripted_server, tmp_path):
    home, server = tmp_path / "home", scripted_server
    config = small_window_config(tmp_path)
    answer_summaries(server)
    build_history(server, home, tmp_path, config)
    final = "All done: the tool said hello and the network stayed closed."
    script_the_busy_turn(server, final)

    done = hermeslite(
        [
            "-p",
            "check the tool",
            "--continue",
            "--output-format",
            "stream-json",
            "--include-partial",
            "--config",
            str(config),
            *model_args(server),
        ],
        home,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    events = parse_lines(done.stdout)

    init, result = events[0], events[-1]
    assert (init["type"], init["subtype"]) == ("system", "init")
    assert init["model"] == MODEL and "terminal" in init["tools"] and init["mcp_servers"] == []
    assert init["permissionMode"] == "default"
    with sessions_db(home) as store:
        session_id = store.latest_session_id()
    assert init["session_id"] == session_id
    assert [e for e in events if e["type"] == "result"] == [result]

    # The compaction, start and end, and the retry, as events; the result lists the compaction.
    assert system(events, "compact_start") and len(system(events, "compact_boundary")) == 1
    warnings = [n for n in system(events, "notice") if n["severity"] == "warning"]
    assert any(n.get("context_percent", 0) >= 100 for n in warnings)  # the history was over the threshold
    (retry,) = system(events, "api_retry")
    assert retry["attempt"] == 1 and retry["max_retries"] == 2
    (compaction,) = result["compactions"]
    assert compaction["trigger"] == "preflight"
    assert compaction["pre_tokens"] > compaction["post_tokens"] > 0

    # Each call as a tool_use in an assistant message, each result as a user message's tool_result.
    uses = [
        block
        for e in events
        if e["type"] == "assistant"
        for block in e["message"]["content"]
        if block["type"] == "tool_use"
    ]
    assert [u["input"] for u in uses] == [
        {"command": "echo hello-from-tool"},
        {"command": "curl -s https://example.com"},
    ]
    results = {
        block["tool_use_id"]: block
        for e in events
        if e["type"] == "user"
        for block in e["message"]["content"]
        if block["type"] == "tool_result"
    }
    ran, refused = results[uses[0]["id"]], results[uses[1]["id"]]
    assert "hello-from-tool" in ran["content"] and ran["is_error"] is False
    assert refused["is_error"] is True and refused["content"].startswith("error: denied")
    (denial,) = result["permission_denials"]
    assert denial["tool_use_id"] == uses[1]["id"] and denial["tool_name"] == "terminal"
    assert system(events, "permission_denied")

    # The reply: rebuilt from the deltas, it is the result, and the last assistant message's text.
    assert rebuilt_reply(events) == result["result"] == final
    last_text = [
        b["text"] for e in events if e["type"] == "assistant" for b in e["message"]["content"] if b["type"] == "text"
    ]
    assert last_text[-1] == final

    assert result["subtype"] == "success" and result["is_error"] is False and result["exit_code"] == 0
    assert result["session_id"] == session_id
    assert result["num_turns"] == 3  # three model replies answered this run's turn
    assert set(result["usage"]) >= USAGE_KEYS and result["usage"]["output_tokens"] > 0
    assert result["total_cost_usd"] is None and result["cost_usd"] is None  # the test model has no price
    assert isinstance(result["duration_ms"], int) and result["duration_ms"] >= 0


def test_json_prints_one_object_whose_result_the_deltas_rebuild(scripted_server, tmp_path):
    """The same scripted turn in both modes: json's `result` is what a stream consumer rebuilds."""
    server, final = scripted_server, "line one\nline two, with “quotes” and a tab\tend"
    runs = {}
    for output in ("json", "stream-json"):
        script_the_busy_turn(server, final)
        extra = ["--include-partial"] if output == "stream-json" else []
        done = hermeslite(
            ["-p", "go", "--output-format", output, *extra, *model_args(server)], tmp_path / output, tmp_path
        )
        assert done.returncode == 0, done.stderr
        runs[output] = parse_lines(done.stdout)
    (only,) = runs["json"]
    assert only["type"] == "result" and only["result"] == final
    assert rebuilt_reply(runs["stream-json"]) == only["result"]
    assert only["num_turns"] == 3 and len(only["permission_denials"]) == 1 and only["compactions"] == []
    assert set(only["usage"]) >= USAGE_KEYS


def test_without_include_partial_whole_messages_only(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("whole answer", chunks=4))
    done = hermeslite(
        ["-p", "hi", "--output-format", "stream-json", *model_args(scripted_server)], tmp_path / "h", tmp_path
    )
    assert done.returncode == 0, done.stderr
    events = parse_lines(done.stdout)
    assert not [e for e in events if e["type"] == "stream_event"]
    texts = [b["text"] for e in events if e["type"] == "assistant" for b in e["message"]["content"]]
    assert texts == ["whole answer"] and events[-1]["result"] == "whole answer"


def test_an_auth_error_is_an_event_and_the_exit_code_is_text_modes(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided", type="invalid_request_error"))
    args = ["-p", "hi", *model_args(scripted_server)]
    text = hermeslite(args, tmp_path / "h1", tmp_path)
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided", type="invalid_request_error"))
    done = hermeslite([*args, "--output-format", "stream-json"], tmp_path / "h2", tmp_path)
    assert text.returncode == done.returncode == 1
    events = parse_lines(done.stdout)
    (error,) = system(events, "error")
    result = events[-1]
    assert result["type"] == "result" and result["is_error"] is True and result["exit_code"] == 1
    assert result["subtype"].startswith("error") and result["errors"] == [error["message"]]
    assert "401" in error["message"] or "key" in error["message"].lower()
    assert "Traceback" not in done.stderr


def test_an_error_before_the_turn_still_ends_the_stream_with_a_result(tmp_path):
    """No key for a hosted model: the run never reaches the provider; stdout is still one result."""
    done = hermeslite(["-p", "hi", "--model", "openai/gpt-4o", "--output-format", "json"], tmp_path / "h", tmp_path)
    assert done.returncode == 1
    (result,) = parse_lines(done.stdout)
    assert result["type"] == "result" and result["is_error"] is True
    assert any("OPENAI_API_KEY" in e for e in result["errors"])


def test_bad_values_are_one_line_usage_errors(tmp_path):
    for args, words_in_error in (
        (["-p", "hi", "--output-format", "yaml"], "invalid choice: 'yaml'"),
        (["-p", "hi", "--output-form=json"], "unrecognized arguments: --output-form=json"),  # no prefixes
        (["-p", "hi", "--include-partial"], "--include-partial"),
        (["--output-format", "json"], "-p"),
    ):
        done = hermeslite(args, tmp_path / "h", tmp_path)
        assert done.returncode == 2, args
        assert done.stdout == "" and words_in_error in done.stderr and "Traceback" not in done.stderr


def test_an_edit_and_its_diff_never_reach_stdout_as_text(scripted_server, tmp_path):
    """Text mode prints an edit's diff on stderr; in stream-json stdout stays JSON and the file is written."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("one\ntwo\n")
    scripted_server.enqueue(
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "two\n", "new": "TWO\n"})], ids=["edit"]),
        Reply.text("patched"),
    )
    done = hermeslite(
        ["-p", "edit", "--output-format", "stream-json", *model_args(scripted_server)], tmp_path / "h", project
    )
    assert done.returncode == 0, done.stderr
    events = parse_lines(done.stdout)
    (edit,) = [b for e in events if e["type"] == "user" for b in e["message"]["content"] if b["tool_use_id"] == "edit"]
    assert edit["is_error"] is False and "notes.txt" in edit["content"]
    assert (project / "notes.txt").read_text() == "one\nTWO\n"
    assert events[-1]["result"] == "patched"


def test_hooks_talk_in_events_and_a_hook_block_is_a_permission_denial(scripted_server, tmp_path):
    """A hook that prints, one that fails and one that blocks: stdout stays JSON, the failure is a
    warning notice, and the blocked call is listed with the refusals."""
    home, project, hooks = tmp_path / "home", tmp_path / "project", tmp_path / "hooks"
    project.mkdir()
    chatty = script(hooks, "chatty.sh", 'echo "hook says hi"; exit 0')
    broken = script(hooks, "broken.sh", 'echo "cannot find my rules file" >&2; exit 1')
    block = script(hooks, "block.sh", 'grep -q "touch" && { echo "no new files here" >&2; exit 2; }; exit 0')
    groups = on("PreToolUse", chatty, broken)["PreToolUse"] + on("PreToolUse", block, matcher="terminal")["PreToolUse"]
    config = {"hooks": {"PreToolUse": groups}}
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "touch made.txt"})], ids=["touch"]), Reply.text("could not")
    )
    done = hermeslite(
        ["-p", "make a file", "--output-format", "stream-json", *model_args(scripted_server)], home, project
    )
    assert done.returncode == 0, done.stderr
    events = parse_lines(done.stdout)
    assert not (project / "made.txt").exists()
    assert "hook says hi" not in done.stdout
    notices = [n["message"] for n in system(events, "notice")]
    assert any("cannot find my rules file" in n for n in notices), notices
    (denial,) = events[-1]["permission_denials"]
    assert denial["tool_use_id"] == "touch" and denial["tool_input"] == {"command": "touch made.txt"}


def test_escape_sequences_are_escaped_in_the_json_and_come_back_whole(scripted_server, tmp_path):
    """stdout may be a terminal: no raw control character reaches it, yet a parser gets the reply exactly."""
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": HOSTILE_COMMAND})]), Reply.text(HOSTILE_REPLY, chunks=5)
    )
    done = hermeslite(
        ["-p", "show me", "--output-format", "stream-json", "--include-partial", *model_args(scripted_server)],
        tmp_path / "h",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert not [c for c in done.stdout if is_control(c) and c != "\n"]
    events = parse_lines(done.stdout)
    assert rebuilt_reply(events) == events[-1]["result"] == HOSTILE_REPLY


def test_a_reader_that_goes_away_ends_the_run_quietly_with_the_turn_saved(scripted_server, tmp_path):
    """`... --output-format stream-json | head -n 1`: the turn goes on, is saved, and the exit is 141."""
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.text(LONG_REPLY, chunks=400))
    args = ["-p", "long", "--output-format", "stream-json", "--include-partial", *model_args(scripted_server)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermeslite", *args],
        cwd=tmp_path,
        env=env_for(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = json.loads(proc.stdout.readline())
    proc.stdout.close()
    errors = proc.stderr.read().decode()
    assert proc.wait(timeout=patience(120)) == 141
    assert first["subtype"] == "init"
    assert "Traceback" not in errors and "Broken pipe" not in errors, errors
    with sessions_db(home) as store:
        assert store.load_transcript(store.latest_session_id())[-1] == {"role": "assistant", "content": LONG_REPLY}


def test_mcp_servers_are_in_init_and_their_start_up_lines_are_events(scripted_server, home, workdir):
    """A server that starts and one that cannot: init names both, the failure is a warning notice,
    the working server's tool is called, and stdout holds nothing but JSON."""
    config = home / "config" / "config.yaml"
    config.parent.mkdir(parents=True)
    servers = {"t": stdio_entry(approved_tools=["echo"]), "nope": {"command": "no-such-mcp-program"}}
    config.write_text(yaml.safe_dump({"mcp_servers": servers}))
    scripted_server.enqueue(
        Reply.tool_calls([("mcp__t__echo", {"text": "from a real process"})], ids=["mcp"]), Reply.text("done")
    )
    done = hermeslite(["-p", "echo it", "--output-format", "stream-json", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 0, done.stderr
    events = parse_lines(done.stdout)
    assert {server["name"] for server in events[0]["mcp_servers"]} == {"t", "nope"}
    assert any("no-such-mcp-program" in n["message"] for n in system(events, "notice") if n["severity"] == "warning")
    (echoed,) = [b for e in events if e["type"] == "user" for b in e["message"]["content"] if b["tool_use_id"] == "mcp"]
    assert "from a real process" in echoed["content"] and events[-1]["result"] == "done"
