"""Budgets that fit any window (hypothesis): after a forced compaction, several turns fit before the next.

For windows from 4k to 2M tokens and long generated sessions (tool outputs
sized to the window, chat, the odd huge message), a forced compaction must
leave the whole request (tool schemas, system prompt, messages) at no more
than 60% of the threshold. The one exception is when what no compaction can
shrink (the latest user message, with the system prompt and tool schemas)
leaves no room for even a minimal checkpoint; the result must then say why.
The same holds for a second compaction after more work, whatever the
summarizer does, wherever the last request sent ended (the cut may move
back to keep what came after it), and for a provider whose tokenizer counts 0.5-3x our
estimate: counted as the meter counts (calibrated), the request is within
60% of the threshold, so the next preflight does not compact again.
"""

from __future__ import annotations

import asyncio
import functools

from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from hermeslite.context import CompressionConfig, ContextCompressor, estimate_tokens
from hermeslite.context.boundaries import latest_user_index
from hermeslite.context.budgets import ANCHOR_MIN, FRAME_TOKENS, SUMMARY_MIN
from hermeslite.context.messages import ARCHIVE_KEY
from hermeslite.context.summary_request import LiveRequest, LiveRequests
from hermeslite.context.tokens import message_tokens
from hermeslite.context.turn import CUT, RESULT_FLOOR

from ..builders import Transcript, assert_valid
from ..summary_requests import checkpoint

WINDOWS = st.one_of(
    st.sampled_from([4_096, 8_192, 32_000, 128_000, 200_000, 1_000_000, 2_000_000]), st.integers(4_096, 2_000_000)
)
PIECES = (
    "def handler(request):\n    return send(request)\n",
    "collected 12 items ... PASSED\n",
    "naïve façade ✅ 修复解析器\n",
    "E   AssertionError: 3 != 5\n",
)
SUMMARY_KINDS = ("valid", "lossy", "empty", "chatty", "verbose", "raises")


def _text(piece: str, chars: int) -> str:
    return (piece * (chars // len(piece) + 1))[:chars]


class Summarizer:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    async def __call__(self, prompt: str, model: str | None) -> str:
        headings = checkpoint("- recorded.")
        if self.kind == "valid":
            return headings
        if self.kind == "lossy":
            return headings.replace("- recorded.", "None.")
        if self.kind == "empty":
            return ""
        if self.kind == "chatty":
            return "Sure! We fixed a lot today and everything is in good shape. " * 20
        if self.kind == "verbose":  # well formed, but as long as the prompt allows
            return headings + "\n" + _text("- a detail worth keeping, at length.\n", len(prompt) // 3)
        raise ConnectionError("connection reset by peer")


def _live(data, messages: list[dict], overhead: int, summarizer: Summarizer) -> LiveRequests:
    """The requests the agent holds: the transcript now, and a last request sent that carried a
    drawn prefix of it (the rest came after it; the engine keeps those verbatim when they fit)."""
    n = len(messages)
    carried = st.one_of(st.integers(max(1, n - 6), n), st.integers(1, n))  # mostly a few turns back, as in a session
    sent = messages[: data.draw(carried, label="messages the last request carried")]

    def request(carried: list[dict]) -> LiveRequest:
        return LiveRequest(
            messages=tuple(carried),
            tokens=estimate_tokens(carried) + overhead,
            send=lambda instruction: summarizer(instruction, None),
        )

    return LiveRequests(now=request(messages), sent=request(sent))


@functools.cache
def _sizes(threshold: int) -> st.SearchStrategy[int]:
    """Tool output sizes in characters: up to a fifth of the threshold each."""
    return st.integers(50, max(200, threshold * 4 // 5))


@st.composite
def sessions(draw, threshold: int, calls_from: int = 0) -> list[dict]:
    """User turns with tool rounds and answers until the session is 1-3x the threshold."""
    t = Transcript(None)
    goal = threshold * draw(st.sampled_from([1, 2, 3]))
    sizes = _sizes(threshold)
    n = calls_from
    while estimate_tokens(t.messages) < goal:
        n += 1
        t.user(_text(draw(st.sampled_from(PIECES)), draw(st.integers(20, 1_500))))
        for _ in range(draw(st.integers(0, 3))):
            name = draw(st.sampled_from(["read_file", "terminal", "write_file", "search_files"]))
            output = _text(draw(st.sampled_from(PIECES)), draw(sizes))
            t.tool(name, {"path": f"src/m{n}.py", "command": f"pytest -q tests/t{n}.py"}, output + "\n[exit code: 1]")
        t.assistant(_text(draw(st.sampled_from(PIECES)), draw(st.integers(20, 3_000))))
    return t.messages


def _latest(draw, target: int) -> str:
    """The message being sent: usually short, sometimes about the size of what fits, sometimes larger."""
    kind = draw(st.sampled_from(["short", "short", "short", "near", "huge"]))
    chars = {
        "short": draw(st.integers(10, 800)),
        "near": target * draw(st.integers(2, 4)),
        "huge": target * draw(st.integers(4, 12)),
    }[kind]
    return _text("please look at the parser again ", chars)


def _check(c: ContextCompressor, before: list[dict], result, overhead: int, factor: float = 1.0) -> None:
    """`factor` is the calibration: the meter counts round(estimate * factor)."""
    after = round((estimate_tokens(result.messages) + overhead) * factor)
    target = c.target_tokens
    user_at = latest_user_index(before)
    fixed = overhead + message_tokens(before[0]) + (message_tokens(before[user_at]) if user_at is not None else 0)
    note(f"threshold={c.threshold_tokens} target={target} after={after} fixed={fixed} too_large={result.too_large}")
    assert_valid(result.messages)
    event(
        "over the target: "
        + ("the fixed part is too large" if result.too_large else "no")
        + f", {'fallback' if result.fallback_used else 'model summary' if result.summary else 'no summary'}"
    )
    assert after <= target or (fixed + FRAME_TOKENS + SUMMARY_MIN + ANCHOR_MIN) * factor > target
    assert (after > target) == bool(result.too_large)
    assert result.tokens_after == after  # the result reports what the meter will show
    # In the meter's units, as the engine compares: a calibrated count scales every part.
    if result.too_large and fixed * factor > target and message_tokens(before[user_at]) * factor > target // 2:
        assert "latest user message" in result.too_large and "start a new session" in result.too_large


def default_compressor(window: int, summary_kind: str) -> ContextCompressor:
    """The shipped compression settings for a `window`-token model, summarizing as `summary_kind` says."""
    return ContextCompressor(
        CompressionConfig(),
        context_length=window,
        summarize=Summarizer(summary_kind),
        clock=lambda: 1_000.0,
        today=lambda: "2026-11-22",
    )


PROPERTY = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@PROPERTY
@given(st.data(), WINDOWS, st.sampled_from(SUMMARY_KINDS), st.sampled_from(SUMMARY_KINDS))
def test_forced_compaction_leaves_the_request_at_most_60_percent_of_the_threshold(data, window, first, second):
    c = default_compressor(window, first)
    threshold, target = c.threshold_tokens, c.target_tokens
    c.request_overhead_tokens = data.draw(st.integers(0, threshold // 20), label="tool schemas")
    system = {
        "role": "system",
        "content": _text("You are a coding agent. ", data.draw(st.integers(20, threshold // 5), label="system chars")),
    }
    messages = [system, *data.draw(sessions(threshold), label="session")]
    messages.append({"role": "user", "content": _latest(data.draw, target)})
    live = _live(data, messages, c.request_overhead_tokens, Summarizer(first))
    result = asyncio.run(c.compress(messages, force=True, live=live))
    _check(c, messages, result, c.request_overhead_tokens)

    c.summarize = Summarizer(second)
    grown = [
        *result.messages,
        {"role": "assistant", "content": "Done."},
        *data.draw(sessions(threshold, calls_from=1_000), label="more work"),
    ]
    grown.append({"role": "user", "content": _latest(data.draw, target)})
    again = asyncio.run(c.compress(grown, force=True, live=_live(data, grown, c.request_overhead_tokens, c.summarize)))
    _check(c, grown, again, c.request_overhead_tokens)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), WINDOWS, st.floats(0.5, 3.0), st.sampled_from(SUMMARY_KINDS))
def test_with_a_calibrated_count_a_forced_compaction_is_enough_for_the_next_preflight(data, window, factor, kind):
    c = default_compressor(window, kind)
    c.token_scale = factor
    threshold = c.threshold_tokens
    estimated_threshold = int(threshold / factor)  # what the session is sized in: our estimate
    c.request_overhead_tokens = data.draw(st.integers(0, estimated_threshold // 20), label="tool schemas")
    system = {
        "role": "system",
        "content": _text(
            "You are a coding agent. ", data.draw(st.integers(20, estimated_threshold // 5), label="system chars")
        ),
    }
    messages = [system, *data.draw(sessions(estimated_threshold), label="session")]
    messages.append({"role": "user", "content": _latest(data.draw, int(c.target_tokens / factor))})
    before = round((estimate_tokens(messages) + c.request_overhead_tokens) * factor)
    result = asyncio.run(c.compress(messages, force=True))
    assert result.tokens_before == before
    _check(c, messages, result, c.request_overhead_tokens, factor)
    if not result.too_large:
        assert not c.should_compress(result.tokens_after)  # the next preflight leaves it alone


@st.composite
def turns_in_progress(draw, threshold: int) -> list[dict]:
    """The turn being worked on: the ask, then tool rounds whose outputs run from a line to several
    times the threshold (a command that printed far more than the window holds)."""
    t = Transcript(None).user(_text("please run the checks and fix what fails ", draw(st.integers(20, 400))))
    for n in range(draw(st.integers(1, 6))):
        chars = draw(st.one_of(st.integers(20, 2_000), st.integers(2_000, threshold * 4 * 3)))
        t.tool("terminal", {"command": f"make check-{n}"}, _text(draw(st.sampled_from(PIECES)), chars))
    return t.messages


@PROPERTY
@given(st.data(), WINDOWS, st.sampled_from(SUMMARY_KINDS), st.booleans(), st.booleans())
def test_a_turn_in_progress_is_kept_whole_and_cut_to_fit(data, window, kind, force, history):
    c = default_compressor(window, kind)
    threshold, target = c.threshold_tokens, c.target_tokens
    c.request_overhead_tokens = data.draw(st.integers(0, threshold // 20), label="tool schemas")
    system = {"role": "system", "content": _text("You are a coding agent. ", data.draw(st.integers(20, 2_000)))}
    earlier = data.draw(sessions(threshold), label="session") if history else []
    turn = data.draw(turns_in_progress(threshold), label="turn in progress")
    messages = [system, *earlier, *turn]
    plan = c.plan(messages, force=force)
    result = asyncio.run(c.compress(messages, force=force))
    assert_valid(result.messages)
    start = max(i for i, m in enumerate(result.messages) if m["role"] == "user")
    assert result.messages[start]["content"].endswith(turn[0]["content"])  # the ask, perhaps after the checkpoint
    kept = result.messages[start + 1 :]
    assert [m.get("tool_calls") and m["tool_calls"][0]["id"] for m in kept] == [
        m.get("tool_calls") and m["tool_calls"][0]["id"] for m in turn[1:]
    ]  # every call and result of the turn, in order
    for original, now in zip(turn[1:], kept, strict=True):
        if original["role"] == "tool" and now != original:  # cut to head and tail, or pruned to a line
            ref = now[ARCHIVE_KEY]
            assert result.archived[ref] == original and f"recall id {ref}" in now["content"]
            if CUT.search(now["content"]):
                assert now["content"].startswith(original["content"][:100])
                assert now["content"].endswith(original["content"][-100:])
    after = estimate_tokens(result.messages) + c.request_overhead_tokens
    event(f"turn: {'cut short of room' if plan.turn.short_of_room else 'fits'}, {plan.turn.shortened} cut")
    if plan.turn.short_of_room:  # cut as far as a result is ever cut, and still too big
        for now in kept:
            if now["role"] == "tool":
                assert len(CUT.sub("", now["content"])) <= RESULT_FLOOR
    elif result.summary is not None or plan.turn.shortened:
        fixed = c.request_overhead_tokens + message_tokens(system) + message_tokens(turn[0])
        assert after <= target or fixed + FRAME_TOKENS + SUMMARY_MIN + ANCHOR_MIN > target
    assert bool(result.turn_overflow) == (plan.turn.short_of_room and result.tokens_after >= threshold)
