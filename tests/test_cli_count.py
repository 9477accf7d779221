"""`hermeslite -p --verbose` ends with the next request's size, counted as the TUI's meter counts it."""

from __future__ import annotations

import re

from tests.server import Reply, estimate_prompt_tokens
from tests.test_cli_chat import hermeslite, model_args


def test_verbose_ends_with_what_the_next_request_carries(tmp_path, scripted_server):
    # A provider whose tokenizer counts 30% more than the server's plain estimate.
    scripted_server.responder = lambda body: Reply.text(
        "a short answer", usage=(round(estimate_prompt_tokens(body) * 1.3), 4))
    home = tmp_path / "home"
    first = hermeslite(["-p", "hello there", "--verbose", *model_args(scripted_server)], home, tmp_path)
    assert first.returncode == 0, first.stderr
    match = re.search(r"context: next request ~([\d.]+)k tokens, (\d+)% of the way to compaction at ([\d.]+)k",
                      first.stderr)
    assert match, first.stderr
    predicted = float(match.group(1)) * 1000
    second = hermeslite(["-p", "go", "--continue", *model_args(scripted_server)], home, tmp_path)
    assert second.returncode == 0, second.stderr
    counted = round(estimate_prompt_tokens(scripted_server.requests[-1]) * 1.3)   # what the provider then reports
    # The provider's count, not the plain estimate (30% lower here).
    assert abs(predicted - counted) / counted < 0.03, (predicted, counted)
    assert abs(int(match.group(2)) - 100 * predicted / (float(match.group(3)) * 1000)) < 2
    assert "Traceback" not in first.stderr + second.stderr
