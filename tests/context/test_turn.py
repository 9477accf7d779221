"""The turn in progress: where it starts, cutting its largest results to fit, and `--upto`'s turn numbers."""

from __future__ import annotations

import asyncio
import json

from hermeslite.context import CompressionConfig, ContextCompressor
from hermeslite.context.handoff import merge_into
from hermeslite.context.messages import ARCHIVE_KEY, reference_id
from hermeslite.context.tokens import message_tokens
from hermeslite.context.turn import CUT, RESULT_FLOOR, fit_turn, turn_start, upto_problem, user_turns

from ..builders import Transcript, assert_valid
from ..summary_requests import checkpoint


def _tokens(messages):
    return [message_tokens(m) for m in messages]


def _turn(*outputs: str) -> list[dict]:
    t = Transcript().user("earlier").assistant("ok").user("run the checks")
    for n, output in enumerate(outputs):
        t.tool("terminal", {"command": f"check {n}"}, output)
    return t.build()


def test_the_turn_starts_at_the_latest_user_message_even_one_a_checkpoint_was_merged_into():
    msgs = _turn("out")
    assert turn_start(msgs) == 3
    merged = [*msgs[:3], merge_into(msgs[3], checkpoint(), {}), *msgs[4:]]
    assert turn_start(merged) == 3
    assert user_turns(merged) == [1, 3]
    assert turn_start([{"role": "system", "content": "s"}]) is None


def test_a_turn_that_fits_is_left_alone():
    msgs = _turn("x" * 5_000)
    fit = fit_turn(msgs, _tokens(msgs), 3, room=10_000)
    assert not fit.changed and fit.messages == msgs


def test_the_largest_results_are_cut_first_to_one_length_keeping_head_tail_and_the_way_back():
    small, big, bigger = "s" * 900, "HEAD" + "b" * 20_000 + "TAIL", "HEAD" + "c" * 40_000 + "TAIL"
    msgs = _turn(small, big, bigger)
    tokens = _tokens(msgs)
    room = sum(tokens[4:]) - 12_000
    fit = fit_turn(msgs, tokens, 3, room)
    assert fit.turn_tokens <= room and fit.shortened == 2
    cut = {i: m["content"] for i, m in enumerate(fit.messages) if m.get(ARCHIVE_KEY)}
    assert set(cut) == {7, 9}  # the two largest; the small one is untouched
    assert fit.messages[5]["content"] == small
    kept = [len(CUT.sub("", text)) for text in cut.values()]
    assert abs(kept[0] - kept[1]) <= 1  # cut to one common length
    for i, text in cut.items():
        ref = fit.messages[i][ARCHIVE_KEY]
        assert ref == reference_id(msgs[i]) and fit.archived[ref] == msgs[i]
        assert text.startswith("HEAD") and text.endswith("TAIL")
        assert f'recall(id="{ref}") returns the whole' in text
        total = len(msgs[i]["content"])
        assert f"of {total} characters cut to fit the context window" in text


def test_a_result_cut_again_keeps_its_recall_id_and_its_original_length():
    msgs = _turn("HEAD" + "b" * 30_000 + "TAIL")
    first = fit_turn(msgs, _tokens(msgs), 3, room=sum(_tokens(msgs)[4:]) - 5_000)
    again = fit_turn(first.messages, first.tokens, 3, room=first.turn_tokens - 1_000)
    before, after = first.messages[5], again.messages[5]
    assert after[ARCHIVE_KEY] == before[ARCHIVE_KEY] and not again.archived  # stored once, under one id
    assert len(after["content"]) < len(before["content"])
    assert after["content"].startswith("HEAD") and after["content"].endswith("TAIL")
    assert CUT.search(after["content"]).group(2) == str(30_008)


def test_recall_ids_the_cut_middle_named_are_kept_in_the_marker():
    output = "start\n" + "x" * 10_000 + "\n[whole output: recall id r0123456789]\n" + "y" * 10_000 + "\nend"
    msgs = _turn(output)
    fit = fit_turn(msgs, _tokens(msgs), 3, room=500)
    assert "the cut part named recall id r0123456789" in fit.messages[5]["content"]


def test_results_are_never_cut_below_the_floor_and_huge_arguments_are_shortened_when_that_is_not_enough():
    t = Transcript().user("write it")
    t.tool("write_file", {"path": "big.txt", "content": "w" * 5_000}, "y" * 5_000)
    msgs = t.build()
    fit = fit_turn(msgs, _tokens(msgs), 1, room=10)
    assert fit.turn_tokens > 10  # short of room: the caller reports it
    assert len(CUT.sub("", fit.messages[3]["content"])) == RESULT_FLOOR
    args = json.loads(fit.messages[2]["tool_calls"][0]["function"]["arguments"])
    assert len(args["content"]) < 300 and "recall id" in args["content"]
    assert fit.archived[fit.messages[2][ARCHIVE_KEY]] == msgs[2]


def test_a_pass_over_a_turn_that_alone_overflows_keeps_every_call_and_needs_no_model():
    calls: list[str] = []

    async def summarize(prompt: str, model: str | None) -> str:
        calls.append(prompt)
        return checkpoint()

    c = ContextCompressor(CompressionConfig(), context_length=8_000, summarize=summarize)
    msgs = [{"role": "system", "content": "You are an agent."}, *_turn("z" * 30_000)[3:]]
    result = asyncio.run(c.compress(msgs))
    assert result.changed and result.pruned_only and result.turn_shortened == 1 and not calls
    assert result.tokens_after <= c.target_tokens
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "tool"]
    assert "Shortened tool output of this turn" in result.headline()
    assert result.turn_note() and "Cut 1 tool result of this turn" in result.turn_note()
    assert_valid(result.messages)


def test_a_turn_that_cannot_fit_even_cut_says_why_the_turn_must_stop():
    c = ContextCompressor(CompressionConfig(never_prune_tools=["terminal"]), context_length=4_000, summarize=None)
    t = Transcript("sys").user("run them all")
    t.parallel([("terminal", {"command": f"make {n}"}, "q" * 20_000) for n in range(12)])
    result = asyncio.run(c.compress(t.build()))
    assert result.turn_overflow and "do not fit the context window even with their largest" in result.turn_overflow
    assert result.tokens_after >= c.threshold_tokens
    assert result.turn_shortened == 12


def test_upto_takes_a_turn_before_the_latest():
    msgs = Transcript().user("a").assistant("1").user("b").assistant("2").user("c").build()
    assert upto_problem(msgs, 1) is None and upto_problem(msgs, 2) is None
    assert "from 1 to 2" in upto_problem(msgs, 3) and "3 user turns" in upto_problem(msgs, 3)
    assert upto_problem(msgs, 0) is not None
    assert "only one user turn" in upto_problem(Transcript().user("a").build(), 1)


def test_compress_upto_summarizes_those_turns_and_keeps_every_later_one_verbatim():
    prompts: list[str] = []

    async def summarize(prompt: str, model: str | None) -> str:
        prompts.append(prompt)
        return checkpoint("- the earlier turns, recorded.")

    c = ContextCompressor(CompressionConfig(), context_length=200_000, summarize=summarize)
    t = Transcript("sys")
    for n in range(6):
        t.user(f"ask {n} " + "a" * 2_000).tool("read_file", {"path": f"m{n}.py"}, f"{n}" * 3_000).assistant(f"done {n}")
    msgs = t.build()
    kept_from = user_turns(msgs)[2]  # turns 1 and 2 go, turn 3 on stays
    preview = c.preview(msgs, upto=2)
    assert "Summarize: user turns 1-2: 8 messages (#2-#9)" in "\n".join(preview.lines())
    result = asyncio.run(c.compress(msgs, force=True, upto=2))
    assert result.upto == 2 and result.dropped == kept_from - 1
    assert result.headline().startswith("Compressed turns 1-2 (later turns kept verbatim): ")
    assert result.messages[2:] == msgs[kept_from + 1 :]  # everything after the ask of turn 3, verbatim
    assert result.messages[1]["content"].endswith(msgs[kept_from]["content"])  # that ask, after the checkpoint
    assert "ask 0" in prompts[0] and "ask 2" not in prompts[0]
    assert_valid(result.messages)


def test_a_result_just_over_the_floor_is_not_cut_into_a_longer_one():
    """Cutting 801 characters to 800 added a ~100-character marker: the "shortened" turn grew, and
    the preview promised a size the pass (which keeps the shorter original) never reached."""
    messages = [
        {"role": "user", "content": "run it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "x" * (RESULT_FLOOR + 1)},
    ]
    tokens = [message_tokens(m) for m in messages]
    fit = fit_turn(messages, tokens, 0, room=1)
    assert fit.messages == messages and fit.shortened == 0 and fit.saved == 0
