"""The cache-aware summary request in the engine: when it is used, what it asks, when it falls back.

The agent side (that the request really is the live one plus the instruction)
is tested in tests/agent/test_summary_request.py over HTTP.
"""

from __future__ import annotations

import re

import pytest

from hermeslite.context import CompressionConfig, ContextCompressor, estimate_tokens
from hermeslite.context.messages import SUMMARY_KEY
from hermeslite.context.summary_prompt import INSTRUCTION_OPEN, INTRO, SECTIONS
from hermeslite.context.summary_request import LiveRequest, LiveRequests, build_instruction, to_extend

from ..builders import agent_session
from .scripted import GOOD_SUMMARY, AuthError, Scripted

WINDOW = 60_000


class Live:
    """A live request that answers the appended instruction with scripted replies."""

    def __init__(self, tokens: int, *replies: object) -> None:
        self.tokens = tokens
        self.replies = list(replies)
        self.instructions: list[str] = []

    def one(self, messages: list[dict]) -> LiveRequest:
        async def send(instruction: str) -> str:
            self.instructions.append(instruction)
            reply = self.replies.pop(0) if self.replies else GOOD_SUMMARY
            if isinstance(reply, BaseException):
                raise reply
            return str(reply)

        return LiveRequest(messages=tuple(messages), tokens=self.tokens, send=send)

    def request(self, messages: list[dict]) -> LiveRequests:
        """As the only live request: the one the agent would send now, `messages` its transcript."""
        return LiveRequests(now=self.one(messages))


def make(summarizer: Scripted, **cfg: object) -> ContextCompressor:
    config = CompressionConfig(**{"prune_minimum_tokens": 0, "prune_protect_tokens": 20_000, **cfg})
    return ContextCompressor(config, context_length=WINDOW, summarize=summarizer, today=lambda: "2026-11-22")


def session() -> list[dict]:
    return agent_session(20, output_chars=3_000)


async def test_the_main_model_summarizes_by_extending_the_live_request() -> None:
    original = session()
    serialized, live = Scripted(), Live(estimate_tokens(original))
    result = await make(serialized).compress(original, force=True, live=live.request(original))
    assert len(live.instructions) == 1 and serialized.calls == []
    assert result.summary and result.summary.startswith("## Active Task") and not result.fallback_used
    instruction = live.instructions[0]
    assert instruction.startswith(INSTRUCTION_OPEN) and "Today is 2026-11-22." in instruction
    # The instruction counts the messages kept after the summary (which may be merged into the first).
    handoff = next(i for i, m in enumerate(result.messages) if m.get(SUMMARY_KEY))
    after = len(result.messages) - handoff - 1
    stated = int(re.search(r"the last (\d+) messages above", instruction).group(1))
    assert stated in (after, after + 1)


async def test_the_instruction_says_where_the_kept_tail_starts() -> None:
    kept = [
        {"role": "user", "content": "Now   please\nfix the flaky retry test in tests/test_http.py"},
        {"role": "assistant", "content": "On it."},
    ]
    text = build_instruction(kept, has_previous=True, focus="retry policy", budget_tokens=900, today="2026-01-02")
    assert (
        'From the user message that begins "Now please fix the flaky retry test in tests/test_http.py" on '
        "(the last 2 messages above), the conversation stays in the context" in text
    )
    assert "earlier checkpoint" in text and 'FOCUS: the user asked to keep everything about "retry policy"' in text
    assert "about 900 tokens" in text
    for name, hint in SECTIONS:  # every heading, each with its hint
        assert f"## {name}\n({hint})" in text
    for rule in ("copy file paths", "past tense", "not orders", "do not answer", "Never copy secrets"):
        assert rule in text


def turn_after(messages: list[dict]) -> list[dict]:
    """`messages` plus the next user message: the transcript a preflight compaction sees."""
    return [*messages, {"role": "user", "content": "Next, the retry policy in src/http.py, please."}]


def kept_from(compressor: ContextCompressor, messages: list[dict]) -> int:
    """Where the kept tail of a forced pass over `messages` starts, as a transcript index."""
    plan = compressor.plan(messages, force=True)
    assert plan.bounds is not None
    return plan.positions[plan.bounds.tail_start]


async def compress_with(messages: list[dict], sent: list[dict] | None) -> tuple[Live, Live]:
    """A forced pass over `messages` whose agent last sent `sent`; returns the two live requests."""
    now, last = Live(estimate_tokens(messages)), Live(estimate_tokens(sent or []))
    live = LiveRequests(now=now.one(messages), sent=last.one(sent) if sent is not None else None)
    result = await make(Scripted()).compress(messages, force=True, live=live)
    assert result.summary and not result.fallback_used
    return now, last


async def test_the_summary_extends_the_last_request_sent_when_it_holds_everything_replaced() -> None:
    messages = turn_after(session())
    sent = messages[:-2]  # the model's last reply and the new user message were never sent
    cut = kept_from(make(Scripted()), messages)
    assert cut < len(sent)
    now, last = await compress_with(messages, sent)
    assert now.instructions == [] and len(last.instructions) == 1
    instruction = last.instructions[0]
    first_kept, role = messages[cut].get("content"), messages[cut]["role"]
    snippet = " ".join((first_kept or "").split())[:40]
    where = f'the {role} message that begins "{snippet}' if snippet else f"{role} message on"
    assert where in instruction
    assert f"(the last {len(sent) - cut} messages above), the conversation stays in the context" in instruction


async def test_a_kept_tail_that_starts_where_the_last_request_ended_leaves_it_all_to_the_checkpoint() -> None:
    messages = turn_after(session())
    cut = kept_from(make(Scripted()), messages)
    now, last = await compress_with(messages, messages[:cut])
    assert now.instructions == [] and len(last.instructions) == 1
    assert "All of the conversation above goes into this checkpoint" in last.instructions[0]
    assert "From the" not in last.instructions[0]


async def test_a_cut_among_newer_messages_moves_back_so_the_last_request_sent_is_extended() -> None:
    messages = turn_after(session())
    cut = kept_from(make(Scripted()), messages)
    sent = messages[: cut - 1]
    now, last = await compress_with(messages, sent)
    assert now.instructions == [] and len(last.instructions) == 1
    assert "All of the conversation above goes into this checkpoint" in last.instructions[0]
    result = await make(Scripted()).compress(messages, force=True, live=Live(1).request(messages))
    moved = await make(Scripted()).compress(
        messages, force=True, live=LiveRequests(now=Live(1).one(messages), sent=Live(1).one(sent))
    )
    # The message no request carried stays in the kept tail instead of going into the checkpoint.
    plan = make(Scripted()).plan(messages, force=True, sent=len(sent))
    assert plan.bounds is not None and plan.positions[plan.bounds.tail_start] == len(sent)
    assert moved.dropped == result.dropped - 1


async def test_newer_messages_too_large_to_keep_go_into_a_checkpoint_that_extends_the_current_request() -> None:
    messages = turn_after(session())
    plan = make(Scripted()).plan(messages, force=True)
    assert plan.budgets is not None
    messages[-2] = {"role": "assistant", "content": "a long answer. " * (plan.budgets.tail_cap // 3)}
    sent = messages[:-2]  # the long answer and the new ask came after it
    now, last = await compress_with(messages, sent)
    assert last.instructions == [] and len(now.instructions) == 1
    assert "the conversation stays in the context" in now.instructions[0]


async def test_a_transcript_rewritten_since_the_last_request_extends_the_current_one() -> None:
    messages = turn_after(session())
    sent = [*messages[:-2]]
    sent[3] = {**sent[3], "content": "what the transcript held before a checkpoint edit"}
    now, last = await compress_with(messages, sent)
    assert last.instructions == [] and len(now.instructions) == 1


async def test_with_no_request_sent_yet_the_current_one_is_extended() -> None:
    now, _ = await compress_with(turn_after(session()), None)
    assert len(now.instructions) == 1


async def test_after_an_earlier_compaction_the_cut_is_found_in_the_transcript_the_agent_holds() -> None:
    first = await make(Scripted()).compress(session(), force=True)
    messages = turn_after([*first.messages, *session()[1:]])
    sent = messages[:-2]
    cut = kept_from(make(Scripted()), messages)
    assert 0 < cut < len(sent)
    now, last = await compress_with(messages, sent)
    assert now.instructions == [] and len(last.instructions) == 1
    assert f"(the last {len(sent) - cut} messages above)" in last.instructions[0]


def test_the_choice_between_the_last_request_sent_and_the_current_one() -> None:
    messages = turn_after(session())
    now, sent = Live(1).one(messages), Live(1).one(messages[:-2])
    assert to_extend(LiveRequests(now=now, sent=sent), len(messages) - 2) is sent
    assert to_extend(LiveRequests(now=now, sent=sent), len(messages) - 1) is now
    assert to_extend(LiveRequests(now=now), 3) is now
    longer = Live(1).one([*messages, {"role": "assistant", "content": "undone since"}])
    assert to_extend(LiveRequests(now=now, sent=longer), 3) is now
    copied = Live(1).one([dict(m) for m in messages[:-2]])
    assert to_extend(LiveRequests(now=now, sent=copied), 3) is copied


async def test_a_request_that_would_not_fit_uses_the_serialized_prompt() -> None:
    serialized, live = Scripted(), Live(WINDOW - 500)
    messages = session()
    result = await make(serialized).compress(messages, force=True, live=live.request(messages))
    assert live.instructions == [] and len(serialized.calls) == 1
    assert INTRO in serialized.calls[0][0] and serialized.calls[0][1] is None
    assert result.summary and not result.fallback_used


async def test_a_separate_summary_model_uses_the_serialized_prompt() -> None:
    serialized, live = Scripted(), Live(1_000)
    messages = session()
    compressor = make(serialized, summary_model="cheap/model")
    await compressor.compress(messages, force=True, live=live.request(messages))
    assert live.instructions == [] and [model for _, model in serialized.calls] == ["cheap/model"]


async def test_a_slow_model_with_an_excerpt_cap_uses_the_serialized_prompt() -> None:
    serialized, live = Scripted(), Live(1_000)
    compressor = make(serialized)
    compressor.summary_input_tokens = 1_500
    messages = session()
    await compressor.compress(messages, force=True, live=live.request(messages))
    assert live.instructions == [] and len(serialized.calls) == 1


async def test_without_a_live_request_only_the_serialized_prompt_is_sent() -> None:
    serialized = Scripted()
    await make(serialized).compress(session(), force=True)
    assert len(serialized.calls) == 1


@pytest.mark.parametrize("bad", ["Sure, I will keep going with the task.", RuntimeError("500 from the provider")])
async def test_a_failed_extension_falls_back_to_the_serialized_prompt(bad: object) -> None:
    serialized, live = Scripted(), Live(1_000, bad)
    messages = session()
    result = await make(serialized).compress(messages, force=True, live=live.request(messages))
    assert len(live.instructions) == 1 and len(serialized.calls) == 1
    assert result.summary and not result.fallback_used


async def test_an_echoed_instruction_is_rejected() -> None:
    serialized, live = Scripted(), Live(1_000, f"{INSTRUCTION_OPEN}\n{GOOD_SUMMARY}")
    messages = session()
    result = await make(serialized).compress(messages, force=True, live=live.request(messages))
    assert len(serialized.calls) == 1 and INSTRUCTION_OPEN not in (result.summary or "")


async def test_an_auth_error_on_the_extension_aborts_and_keeps_the_transcript() -> None:
    serialized, live = Scripted(), Live(1_000, AuthError("401 invalid x-api-key"))
    messages = session()
    result = await make(serialized).compress(messages, force=True, live=live.request(messages))
    assert result.aborted and result.messages == messages and serialized.calls == []


async def test_secrets_in_the_extension_reply_are_masked() -> None:
    leaked = GOOD_SUMMARY.replace("## Critical Values\nNone.", "## Critical Values\nkey sk-ant-api03-" + "A" * 40)
    messages = session()
    result = await make(Scripted()).compress(messages, force=True, live=Live(1_000, leaked).request(messages))
    assert result.summary and "A" * 40 not in result.summary


async def test_a_reply_over_its_budget_is_not_followed_by_a_second_request_with_the_same_budget() -> None:
    serialized, live = Scripted(), Live(1_000, GOOD_SUMMARY + "\n" + "- one more detail worth keeping\n" * 700)
    messages = session()
    result = await make(serialized).compress(messages, force=True, live=live.request(messages))
    assert len(live.instructions) == 1 and serialized.calls == []  # the serialized prompt was never sent
    assert result.fallback_used
