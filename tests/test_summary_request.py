"""The cache-aware summary request in the engine: when it is used, what it asks, when it falls back.

The agent side (that the request really is the live one plus the instruction)
is tested in tests/agent/test_summary_request.py over HTTP.
"""

from __future__ import annotations

import re

import pytest

from hermeslite.context import CompressionConfig, ContextCompressor, estimate_tokens
from hermeslite.context.messages import SUMMARY_KEY
from hermeslite.context.summary_prompt import INSTRUCTION_OPEN, INTRO
from hermeslite.context.summary_request import LiveRequest, build_instruction

from .builders import agent_session
from .test_compressor import GOOD_SUMMARY, AuthError, Scripted

WINDOW = 60_000


class Live:
    """A live request that answers the appended instruction with scripted replies."""

    def __init__(self, tokens: int, *replies: object) -> None:
        self.tokens = tokens
        self.replies = list(replies)
        self.instructions: list[str] = []

    def request(self) -> LiveRequest:
        async def send(instruction: str) -> str:
            self.instructions.append(instruction)
            reply = self.replies.pop(0) if self.replies else GOOD_SUMMARY
            if isinstance(reply, BaseException):
                raise reply
            return str(reply)
        return LiveRequest(tokens=self.tokens, send=send)


def make(summarizer: Scripted, **cfg: object) -> ContextCompressor:
    config = CompressionConfig(**{"prune_minimum_tokens": 0, "prune_protect_tokens": 20_000, **cfg})
    return ContextCompressor(config, context_length=WINDOW, summarize=summarizer, today=lambda: "2026-11-22")


def session() -> list[dict]:
    return agent_session(20, output_chars=3_000)


async def test_the_main_model_summarizes_by_extending_the_live_request() -> None:
    original = session()
    serialized, live = Scripted(), Live(estimate_tokens(original))
    result = await make(serialized).compress(original, force=True, live=live.request())
    assert len(live.instructions) == 1 and serialized.calls == []
    assert result.summary and result.summary.startswith("## Active Task") and not result.fallback_used
    instruction = live.instructions[0]
    assert instruction.startswith(INSTRUCTION_OPEN) and "Today's date is 2026-11-22" in instruction
    # The instruction counts the messages kept after the summary (which may be merged into the first).
    handoff = next(i for i, m in enumerate(result.messages) if m.get(SUMMARY_KEY))
    after = len(result.messages) - handoff - 1
    stated = int(re.search(r"The last (\d+) messages", instruction).group(1))
    assert stated in (after, after + 1)


async def test_the_instruction_says_where_the_kept_tail_starts() -> None:
    kept = [{"role": "user", "content": "Now   please\nfix the flaky retry test in tests/test_http.py"},
            {"role": "assistant", "content": "On it."}]
    text = build_instruction(kept, has_previous=True, focus="retry policy", budget_tokens=900, today="2026-01-02")
    assert 'The last 2 messages of the conversation, from the user message that begins "Now please fix the flaky' in text
    assert "earlier checkpoint" in text and 'FOCUS: the user asked to keep everything about "retry policy"' in text
    assert "about 900 tokens" in text
    for heading in ("## Active Task", "## Completed Actions", "## Critical Values"):
        assert heading in text


async def test_a_request_that_would_not_fit_uses_the_serialized_prompt() -> None:
    serialized, live = Scripted(), Live(WINDOW - 500)
    result = await make(serialized).compress(session(), force=True, live=live.request())
    assert live.instructions == [] and len(serialized.calls) == 1
    assert INTRO in serialized.calls[0][0] and serialized.calls[0][1] is None
    assert result.summary and not result.fallback_used


async def test_a_separate_summary_model_uses_the_serialized_prompt() -> None:
    serialized, live = Scripted(), Live(1_000)
    await make(serialized, summary_model="cheap/model").compress(session(), force=True, live=live.request())
    assert live.instructions == [] and [model for _, model in serialized.calls] == ["cheap/model"]


async def test_a_slow_model_with_an_excerpt_cap_uses_the_serialized_prompt() -> None:
    serialized, live = Scripted(), Live(1_000)
    compressor = make(serialized)
    compressor.summary_input_tokens = 1_500
    await compressor.compress(session(), force=True, live=live.request())
    assert live.instructions == [] and len(serialized.calls) == 1


async def test_without_a_live_request_only_the_serialized_prompt_is_sent() -> None:
    serialized = Scripted()
    await make(serialized).compress(session(), force=True)
    assert len(serialized.calls) == 1


@pytest.mark.parametrize("bad", ["Sure, I will keep going with the task.", RuntimeError("500 from the provider")])
async def test_a_failed_extension_falls_back_to_the_serialized_prompt(bad: object) -> None:
    serialized, live = Scripted(), Live(1_000, bad)
    result = await make(serialized).compress(session(), force=True, live=live.request())
    assert len(live.instructions) == 1 and len(serialized.calls) == 1
    assert result.summary and not result.fallback_used


async def test_an_echoed_instruction_is_rejected() -> None:
    serialized, live = Scripted(), Live(1_000, f"{INSTRUCTION_OPEN}\n{GOOD_SUMMARY}")
    result = await make(serialized).compress(session(), force=True, live=live.request())
    assert len(serialized.calls) == 1 and INSTRUCTION_OPEN not in (result.summary or "")


async def test_an_auth_error_on_the_extension_aborts_and_keeps_the_transcript() -> None:
    serialized, live = Scripted(), Live(1_000, AuthError("401 invalid x-api-key"))
    messages = session()
    result = await make(serialized).compress(messages, force=True, live=live.request())
    assert result.aborted and result.messages == messages and serialized.calls == []


async def test_secrets_in_the_extension_reply_are_masked() -> None:
    leaked = GOOD_SUMMARY.replace("## Critical Values\nNone.", "## Critical Values\nkey sk-ant-api03-" + "A" * 40)
    result = await make(Scripted()).compress(session(), force=True, live=Live(1_000, leaked).request())
    assert result.summary and "A" * 40 not in result.summary
