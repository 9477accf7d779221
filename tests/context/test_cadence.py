"""A small window compacts every few turns, not every turn (issue 7's 8k session, engine only).

Thirty turns against an 8,192-token window with ~1,150 tokens of tool schemas,
a 600-token system prompt, ~500-token replies and a file read every third
turn, compacting the way the agent's preflight does. Before budgets scaled with
the window, 27 of the 30 turns compacted and each left the request over the
threshold. Now each compaction must leave the request at or under 60% of the
threshold, so several turns fit before the next one.
"""

from __future__ import annotations

import asyncio
import itertools
import re

import pytest

from hermeslite.context import CompressionConfig, ContextCompressor, estimate_tokens

from ..builders import Transcript
from ..summary_requests import checkpoint

TOOL_SCHEMAS = 1_150


async def dutiful(prompt: str, model: str | None) -> str:
    """A summarizer that writes about as many tokens as it is asked for."""
    aim = int(re.search(r"Aim for about (\d+) tokens", prompt).group(1))
    body = checkpoint("- recorded")
    return body + "\n" + "detail " * max(0, (aim * 4 - len(body)) // 7)


@pytest.mark.parametrize("window", [8_192, 16_384])
def test_a_small_window_compacts_every_few_turns_never_twice_in_a_row(window):
    c = ContextCompressor(CompressionConfig(), context_length=window, summarize=dutiful, today=lambda: "2026-11-22")
    c.request_overhead_tokens = TOOL_SCHEMAS
    messages = Transcript("You are a coding agent. " * 100).build()
    compacted_on: list[int] = []
    for turn in range(30):
        messages = [
            *messages,
            {"role": "user", "content": f"Turn {turn}: carry on with the next step of the refactor."},
        ]
        for _ in range(c.config.max_passes):  # as the agent's preflight does
            if not c.should_compress(estimate_tokens(messages) + TOOL_SCHEMAS):
                break
            result = asyncio.run(c.compress(messages))
            assert result.changed and not result.too_large
            messages = result.messages
            compacted_on.append(turn)
            assert estimate_tokens(messages) + TOOL_SCHEMAS <= c.target_tokens
        if turn % 3 == 0:
            messages = (
                messages + Transcript(None).tool("read_file", {"path": f"src/m{turn}.py"}, "x = 1\n" * 500).build()
            )
        messages = [*messages, {"role": "assistant", "content": "Here is what I changed and why. " * 62}]
    assert compacted_on, "the session outgrew the window, so it must have compacted"
    assert len(compacted_on) <= 30 / 4, f"compacted on turns {compacted_on}"
    assert all(b - a > 1 for a, b in itertools.pairwise(compacted_on)), f"compacted on turns {compacted_on}"
