"""Facts stated once survive a long life: ten forced compactions with new work in between.

A session opens with a standing instruction, a write_file and a failing test;
then ten rounds of ordinary requests (each reading another file), each round
ending in a forced compaction. With summarizers that keep only the active task,
return nothing, or chat without headings, every early fact must still be in
what the model sees after the tenth compaction, and the recorded facts must
stay within their budget instead of growing by a line per compaction.
"""

from __future__ import annotations

import asyncio

import pytest

from hermeslite.context import estimate_tokens
from hermeslite.context.anchors import HEADING
from hermeslite.context.budgets import ANCHOR_MAX, ANCHOR_SHARE
from hermeslite.context.handoff import RECOVERY_NOTE
from hermeslite.context.summary_prompt import SECTIONS

from ..builders import Transcript, assert_valid, pinned_compressor, visible_text

CONSTRAINT = "From now on always use tabs for indentation and never touch vendor/."
WRITTEN = "src/http/retry_policy.py"
FAILING = "pytest tests/http/test_retry_policy.py -q"
ERROR = "E   AssertionError: expected 3 retries, got 5"
REQUESTS = (
    "Can you open {path} and check whether the timeout handling matches the retry policy we wrote? "
    "If something looks off, explain what you would change and why, but keep it short please.",
    "Please read {path} and tell me where the connection pool is created; I want to know whether it "
    "is shared between requests or rebuilt each time, because that would explain the slow start.",
    "Look at {path}: does it log the attempt number when a request is retried? If not, suggest where "
    "a single log line would fit best without making the function harder to read.",
    "Open {path} and see if it still imports the old settings module; we renamed it last week and I "
    "want to be sure nothing still points at the old name before I delete the shim.",
)


def opening() -> Transcript:
    t = Transcript("You are a coding agent working in the acme-http repository.")
    t.user(CONSTRAINT).assistant("Understood: tabs for indentation, and vendor/ stays untouched.")
    t.user("Write a retry policy with exponential backoff for the HTTP client, then run its tests.")
    t.tool(
        "write_file",
        {"path": WRITTEN, "content": "class RetryPolicy:\n\tmax_retries = 3\n" * 20},
        f"Wrote 760 bytes to {WRITTEN}",
    )
    t.tool(
        "terminal",
        {"command": FAILING},
        f"tests/http/test_retry_policy.py::test_max_retries FAILED\n{ERROR}\n1 failed, 3 passed in 0.12s\n"
        "[exit code: 1]",
    )
    t.assistant("The policy is written, but test_max_retries fails: it retries five times instead of three.")
    return t


def work_round(messages: list[dict], round_no: int) -> list[dict]:
    """Twenty ~200-character requests, each reading another file, each answered."""
    t = Transcript(None)
    t.messages = list(messages)
    for n in range(20):
        path = f"src/http/part_{round_no:02d}_{n:02d}.py"
        t.user(REQUESTS[n % len(REQUESTS)].format(path=path))
        t.tool("read_file", {"path": path}, "def handler(request):\n    return send(request)\n" * 30)
        t.assistant(f"I read {path}: it looks fine, nothing to change there.")
    return t.build()


LOSSY = "\n".join(
    f"## {name}\n" + ("Check the timeout handling in the new module." if name == "Active Task" else "None.")
    for name, _ in SECTIONS
)


async def lossy(prompt: str, model: str | None) -> str:
    return LOSSY


async def empty(prompt: str, model: str | None) -> str:
    return ""


async def chatty(prompt: str, model: str | None) -> str:
    return "Sure! Quick recap: we went through a lot of the HTTP code together and it is looking good. " * 4


@pytest.mark.parametrize("summarize", [lossy, empty, chatty], ids=["lossy", "empty", "chatty"])
@pytest.mark.parametrize("window", [8_192, 32_000, 200_000])
def test_early_facts_survive_ten_forced_compactions(summarize, window):
    c = pinned_compressor(summarize, window)
    messages = opening().build()
    facts_sizes = []
    for round_no in range(1, 11):
        messages = work_round(messages, round_no)
        result = asyncio.run(c.compress(messages, force=True))
        assert result.dropped > 0 and result.summary
        messages = result.messages
        assert_valid(messages)
        text = visible_text(messages)
        facts = text[text.find(HEADING) :].split(RECOVERY_NOTE)[0] if HEADING in text else ""
        facts_sizes.append(estimate_tokens(facts))
        assert estimate_tokens(messages) <= c.target_tokens
    text = visible_text(messages)
    assert CONSTRAINT in text
    assert f"wrote {WRITTEN}" in text
    assert any(FAILING in line and "exit 1" in line for line in text.splitlines())
    assert ERROR in text
    # the record is bounded by its budget, not by the number of compactions
    assert max(facts_sizes) <= min(ANCHOR_MAX, int(c.threshold_tokens * ANCHOR_SHARE)) + 50


def test_a_reversed_instruction_replaces_the_earlier_one_and_says_so():
    c = pinned_compressor(lossy, 32_000)
    messages = work_round(opening().build(), 1)
    messages = asyncio.run(c.compress(messages, force=True)).messages
    t = Transcript(None)
    t.messages = list(messages)
    t.user("Actually, use four spaces for indentation instead of tabs.").assistant("Will do.")
    messages = work_round(t.build(), 2)
    text = visible_text(asyncio.run(c.compress(messages, force=True)).messages)
    line = next(ln for ln in text.splitlines() if "four spaces" in ln)
    assert "overrides, where they conflict, the earlier instruction" in line and "always use tabs" in line
    assert text.count("always use tabs") == 1, "the replaced instruction is listed once, as replaced"
