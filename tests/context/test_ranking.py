"""Recorded facts ranked by what they are: under a tight budget the least important go first."""

from __future__ import annotations

import asyncio
import json

from hermeslite.context import CompressionConfig, ContextCompressor
from hermeslite.context.anchors import Anchors, extract_anchors, render_anchors
from hermeslite.context.messages import ANCHORS_KEY
from hermeslite.context.ranking import fit_anchors
from hermeslite.context.result import CompressionResult
from hermeslite.context.tokens import CHARS_PER_TOKEN

from ..builders import Transcript
from ..summary_requests import checkpoint

CONSTRAINT = "Never touch vendor/ and always keep the public API stable."
FAILING = "pytest tests/test_retry.py -q"
ERROR = "E   AssertionError: expected 3 retries, got 5"


def busy_session(reads: int = 150) -> list[dict]:
    """One instruction, one written file and one failure early; then many reads and passing commands."""
    t = Transcript().user(CONSTRAINT).assistant("Understood.")
    t.user("Write the retry policy and test it.")
    t.tool("write_file", {"path": "src/retry.py", "content": "x = 1\n"}, "Wrote 6 bytes to src/retry.py")
    t.tool("terminal", {"command": FAILING}, f"{ERROR}\n1 failed\n[exit code: 1]")
    for n in range(reads):
        t.user(f"Now look at module {n} and tell me whether it handles timeouts the way the client expects.")
        t.tool("read_file", {"path": f"src/module_{n}.py"}, "def f():\n    pass\n")
        t.tool("terminal", {"command": f"ruff check src/module_{n}.py"}, "All checks passed!\n[exit code: 0]")
        t.assistant("It does.")
    t.user("Which of these modules still use the old client?")
    return t.build()


def test_a_written_file_is_kept_however_many_files_are_read_after_it():
    anchors = extract_anchors(busy_session())
    assert ["wrote", "src/retry.py"] in anchors.files
    t = Transcript().user("go").tool("write_file", {"path": "a.py", "content": "1"}, "ok")
    t.tool("read_file", {"path": "a.py"}, "1")
    assert extract_anchors(t.build()).files == [["wrote", "a.py"]], "reading a written file does not demote it"


def test_under_a_tight_budget_the_least_important_facts_go_first():
    anchors = extract_anchors(busy_session())
    fitted = fit_anchors(anchors, budget_tokens=300)
    text = render_anchors(fitted)
    assert len(text) <= 300 * CHARS_PER_TOKEN
    assert fitted.users[0] == "Which of these modules still use the old client?", "the latest ask always"
    assert [CONSTRAINT, ""] in fitted.instructions
    assert [FAILING, 1] in fitted.commands and ERROR in fitted.failures[FAILING]
    assert ["wrote", "src/retry.py"] in fitted.files
    assert not any(c[1] == 0 for c in fitted.commands), "passing commands are the first to go"
    assert len(fitted.files) < len(anchors.files)


def test_a_generous_budget_keeps_everything_and_the_record_never_exceeds_its_budget():
    anchors = extract_anchors(busy_session(reads=5))
    assert fit_anchors(anchors, budget_tokens=100_000) == anchors
    for budget in (100, 250, 600, 1_500, 4_000):
        assert len(render_anchors(fit_anchors(anchors, budget))) <= budget * CHARS_PER_TOKEN


def test_stored_anchors_from_an_older_version_still_load():
    stored = {
        "users": ["go"],
        "files": [["read", "a.py"]],
        "commands": [["ls", 0]],
        "errors": [],
        "todos": ["an old todo item"],
        "failures": {},
    }
    anchors = Anchors.from_dict(stored)
    assert anchors.users == ["go"] and anchors.instructions == [] and "an old todo item" not in render_anchors(anchors)
    assert Anchors.from_dict(json.loads(json.dumps(anchors.to_dict()))) == anchors


async def _valid(prompt: str, model: str | None) -> str:
    return checkpoint()


def test_todo_items_are_not_carried_in_the_checkpoint():
    todos = [
        {"id": "1", "content": "migrate the users table", "status": "in_progress"},
        {"id": "2", "content": "write the rollback script", "status": "pending"},
    ]
    t = Transcript().user("Plan the migration.").tool("todo", {"todos": todos}, "Todo list: 2 items")
    for n in range(30):
        t.user(f"step {n}").tool("read_file", {"path": f"src/m{n}.py"}, "x = 1\n" * 200).assistant("ok")
    t.user("What next?")
    c = ContextCompressor(CompressionConfig(), context_length=8_192, summarize=_valid, today=lambda: "2026-11-22")
    result = asyncio.run(c.compress(t.build(), force=True))
    assert result.summary and "migrate the users table" not in result.summary
    stored = json.dumps([m.get(ANCHORS_KEY) for m in result.messages])
    assert "migrate the users table" not in stored


def test_a_result_repr_is_short_even_for_a_huge_transcript():
    messages = [{"role": "user", "content": "x" * 1_000_000}] * 6
    result = CompressionResult(
        messages=messages,
        tokens_before=1_500_000,
        tokens_after=20_000,
        messages_before=4_800,
        summary="s" * 100_000,
        archived={"r1": messages[0]},
    )
    text = repr(result)
    assert len(text) < 200 and "4800->6 messages" in text and "1500000->20000 tokens" in text


def test_a_latest_message_too_large_for_any_compaction_is_reported_not_retried():
    t = Transcript("You are a coding agent.")
    for n in range(20):
        t.user(f"step {n}").tool("read_file", {"path": f"src/m{n}.py"}, "x = 1\n" * 300).assistant("ok")
    t.user("Please review this log: " + "GET /api/v1/items 200 12ms\n" * 2_000)
    c = ContextCompressor(CompressionConfig(), context_length=8_192, summarize=_valid, today=lambda: "2026-11-22")
    result = asyncio.run(c.compress(t.build()))
    assert result.changed and result.too_large
    assert "the latest user message alone is ~" in result.too_large and "start a new session" in result.too_large
    assert result.advice().startswith("Context still too full: the latest user message alone")
