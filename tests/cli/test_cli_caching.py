"""`hermeslite -p --verbose` against the fake Anthropic server: caching is announced, kept and accounted for.

Each `-p ... --continue` is a new process: the second one must send the same
prefix (tool schemas, system prompt, history) byte for byte, or the cache the
first one wrote is wasted.
"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.cli_process import env_for, hermeslite
from tests.fake_anthropic import FakeAnthropic, Reply
from tests.server import Reply as OpenAIReply

CLAUDE = ["--model", "anthropic/claude-sonnet-4-5"]


def run(args, home, cwd, server):
    env = env_for(home) | {"ANTHROPIC_API_KEY": "test-key"}
    return subprocess.run(
        [sys.executable, "-m", "hermeslite", *args, *CLAUDE, "--api-base", server.base_url],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_verbose_headless_says_caching_is_on_and_the_next_process_reads_the_cache(tmp_path):
    home = tmp_path / "home"
    with FakeAnthropic() as server:
        server.enqueue(Reply.say("first answer"), Reply.say("second answer"))
        first = run(["-p", "hello", "--verbose"], home, tmp_path, server)
        second = run(["-p", "and again", "--continue", "--verbose"], home, tmp_path, server)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.strip() == "first answer" and second.stdout.strip() == "second answer"
    assert (
        "note: Prompt caching: on (Claude via anthropic; system prompt + last 3 messages marked, 5m TTL)"
        in first.stderr
    )
    assert server.rejections == []
    written, read = server.exchanges[0].usage, server.exchanges[1].usage
    assert (
        written.cache_creation_input_tokens > 1_024
        and read.cache_read_input_tokens >= written.cache_creation_input_tokens
    )
    assert re.search(
        r"session: 1 request · 0% of [\d.]+k input tokens read from cache .* cost \$0\.\d{4}", first.stderr
    )
    share = int(re.search(r"session: 2 requests · (\d+)% of", second.stderr).group(1))
    assert share == round(100 * read.cache_read_input_tokens / (written.prompt_tokens + read.prompt_tokens))
    assert "Traceback" not in first.stderr + second.stderr


def test_a_model_without_caching_gets_no_caching_line_and_an_unknown_cost(tmp_path, scripted_server):
    scripted_server.enqueue(OpenAIReply.text("plain"), OpenAIReply.text("quiet"))
    model = ["--model", "openai/test-model", "--api-base", scripted_server.base_url]
    verbose = hermeslite(["-p", "hi", "--verbose", *model], tmp_path / "home", tmp_path)
    quiet = hermeslite(["-p", "hi", *model], tmp_path / "home", tmp_path)
    assert verbose.returncode == 0 and verbose.stdout.strip() == "plain"
    assert "Prompt caching" not in verbose.stderr
    assert re.search(r"session: 1 request · 0% of .* cost unknown", verbose.stderr)
    assert quiet.stdout.strip() == "quiet" and "session:" not in quiet.stderr


def test_a_tiny_request_shows_exact_counts_and_a_cost_that_is_not_zero(tmp_path, scripted_server):
    scripted_server.enqueue(OpenAIReply.text("hi", usage=(40, 3)))
    model = ["--model", "openai/gpt-4o-mini", "--api-base", scripted_server.base_url]
    run = hermeslite(["-p", "hi", "--verbose", *model], tmp_path / "home", tmp_path)
    assert run.returncode == 0, run.stderr
    assert (
        "session: 1 request · 0% of 40 input tokens read from cache (0 written to it) · 3 output tokens" in run.stderr
    )
    assert run.stderr.count("cost under $0.0001") == 1 and "$0.0000" not in run.stderr
    assert re.search(r"context: next request ~\d+ tokens, 0% of the way", run.stderr)
