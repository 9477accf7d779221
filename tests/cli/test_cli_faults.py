"""`hermeslite -p` against faulty providers: one error line on stderr, no traceback, exit 1."""

from __future__ import annotations

import socket
from pathlib import Path

from hermeslite.agent.turn_repair import INCOMPLETE_REPLY
from tests.cli_process import hermeslite, model_args, sessions_db
from tests.server import Reply, ScriptedServer


def error_lines(stderr: str) -> list[str]:
    assert "Traceback" not in stderr
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def write_config(folder: Path, text: str) -> Path:
    path = folder / "hermeslite.yaml"
    path.write_text(text)
    return path


def test_missing_key_is_named_at_once_and_never_retried(tmp_path):
    done = hermeslite(["-p", "hi", "--model", "openai/gpt-4o"], tmp_path / "home", tmp_path)
    assert done.returncode == 1
    assert error_lines(done.stderr) == [
        "error: No API key for openai/gpt-4o: OPENAI_API_KEY is not set; export OPENAI_API_KEY=<your key>, "
        "or name the variable that holds the key in model.api_key_env."
    ]
    assert "retrying" not in done.stderr and "server error" not in done.stderr


def test_configured_key_variable_is_named(tmp_path):
    # Named with --config: from an untrusted ./hermeslite.yaml these two keys would be ignored.
    path = write_config(tmp_path, "model:\n  name: anthropic/claude-sonnet-4-5\n  api_key_env: TEAM_ANTHROPIC_KEY\n")
    done = hermeslite(["-p", "hi", "--config", str(path)], tmp_path / "home", tmp_path)
    assert done.returncode == 1
    assert error_lines(done.stderr) == [
        "error: model.api_key_env names TEAM_ANTHROPIC_KEY, but TEAM_ANTHROPIC_KEY is not set; "
        "export TEAM_ANTHROPIC_KEY=<your key> or change model.api_key_env."
    ]


def test_unknown_provider_is_one_line(tmp_path):
    done = hermeslite(["-p", "hi", "--model", "nosuchprovider/model-x"], tmp_path / "home", tmp_path)
    assert done.returncode == 1
    [line] = error_lines(done.stderr)
    assert "litellm does not know the provider of the model 'nosuchprovider/model-x'" in line


def test_ollama_not_running_says_nothing_is_listening(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = hermeslite(
        ["-p", "hi", "--model", "ollama/llama3.1", "--api-base", f"http://127.0.0.1:{port}"],
        tmp_path / "home",
        tmp_path,
    )
    assert done.returncode == 1
    assert error_lines(done.stderr) == [
        f"error: ollama/llama3.1: nothing is listening on 127.0.0.1:{port} (is Ollama running?)."
    ]
    assert "retrying" not in done.stderr


def test_reply_cut_off_exits_1_and_is_saved_as_incomplete(scripted_server: ScriptedServer, tmp_path):
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.unfinished("The fix is to", chunks=2))
    done = hermeslite(["-p", "fix it", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 1
    assert done.stdout.strip() == "The fix is to"
    [line] = error_lines(done.stderr)
    assert line.startswith("error: The provider ended the reply without finishing it")
    store = sessions_db(home)
    saved = store.load_transcript(store.latest_session_id())
    assert saved[-1]["content"] == f"The fix is to\n\n{INCOMPLETE_REPLY}"


def test_empty_reply_is_retried_with_a_notice_then_fails(scripted_server: ScriptedServer, tmp_path):
    write_config(tmp_path, "agent:\n  max_retries: 1\n")
    scripted_server.enqueue(Reply.empty(), Reply.empty(usage_only=True))
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert "note: retrying (1/1) in 1 s: empty reply" in done.stderr.splitlines()
    [line] = error_lines(done.stderr)
    assert line.startswith("error: The provider returned an empty reply")


def test_an_api_base_that_serves_a_web_page_is_named_in_one_line(scripted_server, tmp_path):
    scripted_server.enqueue(*[Reply.html()] * 4)
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 1
    assert error_lines(done.stderr) == [
        f"error: The server at {scripted_server.base_url} answered with an HTML page, not the API: "
        "check model.api_base."
    ]
    assert "retrying" not in done.stderr and len(scripted_server.requests) == 1
