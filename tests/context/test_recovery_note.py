"""Every checkpoint ends with the recovery note (how to search the originals with `recall`), once.

Model-written, fallback (summarizer failed, or none configured) and edited
checkpoints, standalone or merged into a user message; the note never enters
the iterative state, so later compactions do not pile it up.
"""

from __future__ import annotations

import asyncio

from hermeslite.context import CompressionConfig, ContextCompressor, estimate_tokens
from hermeslite.context.budgets import FRAME_TOKENS
from hermeslite.context.handoff import (
    END,
    OPEN,
    PREAMBLE,
    RECOVERY_NOTE,
    find_previous,
    merge_into,
    split_handoff,
    summary_message,
)
from hermeslite.context.messages import SUMMARY_KEY, text_of
from hermeslite.context.summary_prompt import clean_reply

from ..builders import agent_session, assert_valid
from ..summary_requests import checkpoint

GOOD = checkpoint()


def compressor(summarize, **cfg) -> ContextCompressor:
    config = CompressionConfig(**{"threshold": 0.5, "prune_minimum_tokens": 0, "prune_protect_tokens": 20_000, **cfg})
    return ContextCompressor(
        config, context_length=20_000, summarize=summarize, clock=lambda: 1_000.0, today=lambda: "2026-11-22"
    )


def replying(text: str):
    prompts: list[str] = []

    async def summarize(prompt: str, model: str | None) -> str:
        prompts.append(prompt)
        return text

    summarize.prompts = prompts  # type: ignore[attr-defined]
    return summarize


async def failing(prompt: str, model: str | None) -> str:
    raise ConnectionResetError("upstream reset")


def checkpoint_text(messages: list[dict]) -> str:
    carrier = next(m for m in messages if m.get(SUMMARY_KEY))
    return text_of(carrier["content"])


def assert_note_ends_the_checkpoint(text: str) -> None:
    assert text.count(RECOVERY_NOTE) == 1
    tail = text.split(RECOVERY_NOTE, 1)[1]
    assert tail == "" or tail.startswith(f"\n\n{END}"), tail[:80]
    body = text.split(RECOVERY_NOTE, 1)[0]
    assert body.endswith("\n\n") and body.strip() != f"{OPEN} {PREAMBLE}"


def compress(c: ContextCompressor, messages: list[dict]):
    result = asyncio.run(c.compress(messages))
    assert result.summary and not result.aborted
    assert_valid(result.messages)
    return result


def test_model_written_checkpoint_ends_with_the_note():
    result = compress(compressor(replying(GOOD)), agent_session(30))
    assert not result.fallback_used
    assert_note_ends_the_checkpoint(checkpoint_text(result.messages))
    assert RECOVERY_NOTE not in result.summary


def test_fallback_checkpoints_end_with_the_note():
    for summarize in (failing, None, replying("Sure, here is a friendly recap without headings.")):
        result = compress(compressor(summarize), agent_session(30))
        assert result.fallback_used
        assert_note_ends_the_checkpoint(checkpoint_text(result.messages))


def test_note_in_a_merged_and_in_a_standalone_checkpoint():
    merged = merge_into({"role": "user", "content": "the latest ask"}, GOOD, {})
    text = merged["content"]
    assert_note_ends_the_checkpoint(text)
    assert text.endswith(f"{RECOVERY_NOTE}\n\n{END}\n\nthe latest ask")
    parts = merge_into({"role": "user", "content": [{"type": "text", "text": "see"}]}, GOOD, {})
    assert_note_ends_the_checkpoint(parts["content"][0]["text"])
    for role in ("user", "assistant"):
        assert_note_ends_the_checkpoint(summary_message(role, GOOD, {})["content"])
    assert summary_message("assistant", GOOD, {})["content"].endswith(RECOVERY_NOTE)


def test_an_edited_checkpoint_carrying_the_note_gets_it_once():
    """An edit (or a summarizer) that pastes the note in keeps one, at the end."""
    pasted = f"{RECOVERY_NOTE}\n{GOOD}\n\n{RECOVERY_NOTE}"
    message = summary_message("user", pasted, {})
    assert_note_ends_the_checkpoint(message["content"])
    body, rest = split_handoff(message)
    assert rest is None and body == GOOD
    assert clean_reply(f"{GOOD}\n\n{RECOVERY_NOTE}") == GOOD


def test_a_checkpoint_edited_through_the_engine_ends_with_the_note():
    c = compressor(replying(GOOD))
    result = compress(c, agent_session(30))
    edited_text = GOOD.replace("## Goal\nNone.", "## Goal\nShip the parser fix.") + f"\n\n{RECOVERY_NOTE}"
    edit = c.edit_checkpoint(result.messages, edited_text)
    assert edit.accepted, edit.reason
    assert "Ship the parser fix." in checkpoint_text(edit.messages)
    assert_note_ends_the_checkpoint(checkpoint_text(edit.messages))
    c.adopt_transcript(edit.messages)
    assert RECOVERY_NOTE not in (c.previous_summary or "")
    again = compress(c, edit.messages + agent_session(20, system="")[1:])  # more turns, no second system prompt
    assert "\n".join(text_of(m.get("content")) for m in again.messages).count(RECOVERY_NOTE) == 1


def test_iterative_updates_do_not_repeat_the_note():
    summarize = replying(GOOD)
    c = compressor(summarize)
    messages = agent_session(30)
    for round_no in range(3):
        result = compress(c, messages)
        whole = "\n".join(text_of(m.get("content")) for m in result.messages)
        assert whole.count(RECOVERY_NOTE) == 1, round_no
        assert RECOVERY_NOTE not in (c.previous_summary or "")
        messages = result.messages + agent_session(20, system="")[1:]  # more turns, no second system prompt
    assert len(summarize.prompts) == 3
    assert all(RECOVERY_NOTE not in prompt for prompt in summarize.prompts)
    found = find_previous(result.messages)
    assert found is not None and RECOVERY_NOTE not in found[0]


def test_a_checkpoint_written_before_the_note_still_reads_back():
    old = {"role": "user", "content": f"{OPEN} {PREAMBLE}\n\n{GOOD}\n\n{END}\n\nnext ask", SUMMARY_KEY: True}
    assert split_handoff(old) == (GOOD, "next ask")


def test_the_frame_budget_covers_the_note():
    for role in ("user", "assistant"):
        framed = summary_message(role, GOOD, {})
        assert estimate_tokens([framed]) - estimate_tokens(GOOD) <= FRAME_TOKENS
    merged = merge_into({"role": "user", "content": "x"}, GOOD, {})
    assert estimate_tokens([merged]) - estimate_tokens(GOOD) - estimate_tokens("x") <= FRAME_TOKENS
    assert estimate_tokens(RECOVERY_NOTE) < 60  # one or two lines
