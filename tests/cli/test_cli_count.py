"""`hermeslite -p --verbose` ends with the next request's size, counted as the TUI's meter counts it."""

from __future__ import annotations

import re

from tests.cli_process import hermeslite, model_args
from tests.server import Reply, estimate_prompt_tokens
from tests.summary_requests import checkpoint, is_summary_request


def test_verbose_ends_with_what_the_next_request_carries(tmp_path, scripted_server):
    # A provider whose tokenizer counts 30% more than the server's plain estimate.
    scripted_server.responder = lambda body: Reply.text(
        "a short answer", usage=(round(estimate_prompt_tokens(body) * 1.3), 4)
    )
    home = tmp_path / "home"
    first = hermeslite(["-p", "hello there", "--verbose", *model_args(scripted_server)], home, tmp_path)
    assert first.returncode == 0, first.stderr
    match = re.search(
        r"context: next request ~([\d.]+)k tokens, (\d+)% of the way to compaction at ([\d.]+)k", first.stderr
    )
    assert match, first.stderr
    predicted = float(match.group(1)) * 1000
    second = hermeslite(["-p", "go", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert second.returncode == 0, second.stderr
    counted = round(estimate_prompt_tokens(scripted_server.requests[-1]) * 1.3)  # what the provider then reports
    # The provider's count, not the plain estimate (30% lower here).
    assert abs(predicted - counted) / counted < 0.03, (predicted, counted)
    assert abs(int(match.group(2)) - 100 * predicted / (float(match.group(3)) * 1000)) < 2
    assert "Traceback" not in first.stderr + second.stderr


def test_a_continued_session_starts_calibrated_so_its_first_preflight_counts_in_the_providers_tokens(
    tmp_path, scripted_server
):
    # A tokenizer that counts twice the server's plain estimate; summary requests get a checkpoint.
    scripted_server.responder = lambda body: Reply.text(
        checkpoint() if is_summary_request(body) else "a short answer",
        usage=(round(estimate_prompt_tokens(body) * 2), 4),
    )
    home = tmp_path / "home"
    roomy, tight = tmp_path / "roomy.yaml", tmp_path / "tight.yaml"
    roomy.write_text("compression:\n  context_length: 100000\n  memory_flush: false\n")
    first = hermeslite(["-p", "hello there", "--config", str(roomy), *model_args(scripted_server)], home, tmp_path)
    assert first.returncode == 0, first.stderr
    plain = estimate_prompt_tokens(scripted_server.requests[0])
    # A window whose threshold (75%) sits halfway between the plain estimate and the provider's count:
    # only a calibrated count crosses it.
    tight.write_text(f"compression:\n  context_length: {round(plain * 1.5 / 0.75)}\n  memory_flush: false\n")
    second = hermeslite(
        ["-p", "go", "--continue", "--config", str(tight), *model_args(scripted_server)], home, tmp_path
    )
    assert second.returncode == 0, second.stderr
    started = re.search(r"compressing \(preflight\) \d+ messages, ~([\d.]+)k tokens", second.stderr)
    assert started, second.stderr  # decided before the process's first reply
    counted = float(started.group(1)) * 1000
    assert abs(counted - 2 * plain) / (2 * plain) < 0.1, (counted, plain)
    assert "Traceback" not in first.stderr + second.stderr
