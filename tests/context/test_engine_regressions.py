"""Regression tests for engine bugs found by benchmarks/retention.py and benchmarks/compress_bench.py."""

import json
import random
import re

from hermeslite.context import anchors as anchors_mod
from hermeslite.context.anchors import MAX_COMMANDS, MAX_OLDER_FAILURES, Anchors, extract_anchors, render_anchors
from hermeslite.context.clip import clip_line
from hermeslite.context.fallback import fallback_checkpoint
from hermeslite.context.messages import reference_id
from hermeslite.context.summary_prompt import build_prompt, rejection_reason
from hermeslite.context.tool_summaries import MATCH_COUNT, reported_count

from ..builders import Transcript
from ..summary_requests import checkpoint

ROUNDING = "pytest tests/test_invoices.py -k rounding"
ROUNDING_ERROR = "E   AssertionError: total 10.004 != 10.00"
ROUNDING_OUTPUT = (
    "tests/test_invoices.py::test_rounding FAILED\n"
    f"{ROUNDING_ERROR}\n"
    "FAILED tests/test_invoices.py::test_rounding - AssertionError: total 10.004 != 10.00\n"
    "1 failed, 4 passed in 0.41s\n[exit code: 1]"
)


def _failing_then_noise() -> list[dict]:
    t = Transcript().user("Render invoices from a template and check the rounding.")
    t.tool("terminal", {"command": ROUNDING}, ROUNDING_OUTPUT)
    for n in range(MAX_OLDER_FAILURES - 1):  # later failures of other tests, each with its own error lines
        t.tool(
            "terminal",
            {"command": f"pytest tests/test_m{n}.py -q"},
            f"FAILED tests/test_m{n}.py::test_x - AssertionError: {n}\n1 failed\n[exit code: 1]",
        )
    for n in range(30):
        t.tool("terminal", {"command": f"ls -la dir_{n}"}, "a.py\nb.py\n[exit code: 0]")
    for n in range(15):  # grep exits 1 when nothing matches: a non-zero exit without an error
        t.tool("terminal", {"command": f"grep -rn nothing_{n} src"}, "[exit code: 1]")
    for n in range(10):  # file contents that mention exceptions are not errors
        t.tool(
            "read_file",
            {"path": f"src/m{n}.py"},
            "try:\n    x = table[k]\nexcept KeyError:\n    raise ValueError('bad key')\n",
        )
    t.assistant("Still working on it.")
    return t.build()


def test_camel_case_exception_line_is_an_error_line():
    lines = anchors_mod._error_lines(ROUNDING_OUTPUT)
    assert ROUNDING_ERROR in lines
    assert anchors_mod._error_lines("12 passed, 0 failed\n[exit code: 0]") == []


def test_failing_command_keeps_its_error_line_under_later_noise():
    a = extract_anchors(_failing_then_noise())
    assert [ROUNDING, 1] in a.commands
    assert ROUNDING_ERROR in a.failures[ROUNDING]
    assert not any("KeyError" in e or "ValueError" in e for e in a.errors), "file contents taken for errors"
    text = render_anchors(a)
    assert f"- `{ROUNDING}` -> exit 1\n" in text and ROUNDING_ERROR in text


def test_failure_with_error_lines_outranks_silent_nonzero_exits():
    t = Transcript().user("go")
    t.tool("terminal", {"command": ROUNDING}, ROUNDING_OUTPUT)
    for n in range(MAX_COMMANDS + MAX_OLDER_FAILURES + 5):
        t.tool("terminal", {"command": f"grep -rn nothing_{n} src"}, "[exit code: 1]")
    a = extract_anchors(t.build())
    assert [ROUNDING, 1] in a.commands and a.failures[ROUNDING]
    assert len(a.commands) <= MAX_COMMANDS + MAX_OLDER_FAILURES


def test_a_command_that_passes_later_drops_its_old_failure():
    t = Transcript().user("go")
    t.tool("terminal", {"command": ROUNDING}, ROUNDING_OUTPUT)
    t.tool("terminal", {"command": ROUNDING}, "5 passed in 0.3s\n[exit code: 0]")
    a = extract_anchors(t.build())
    assert a.commands == [[ROUNDING, 0]] and a.failures == {}
    older = extract_anchors(Transcript().user("go").tool("terminal", {"command": ROUNDING}, ROUNDING_OUTPUT).build())
    merged = a.merged_with(older)
    assert merged.commands == [[ROUNDING, 0]] and merged.failures == {}
    assert ROUNDING_ERROR not in render_anchors(merged)


def test_failure_carries_over_iterative_merges_and_storage():
    older = extract_anchors(_failing_then_noise())
    stored = Anchors.from_dict(json.loads(json.dumps(older.to_dict())))  # as the transcript keeps it
    assert stored == older
    for round_ in range(3):
        t = Transcript().user(f"round {round_}")
        for n in range(40):
            t.tool("terminal", {"command": f"git show HEAD~{n} --stat  # {round_}"}, "ok\n[exit code: 0]")
        stored = extract_anchors(t.build()).merged_with(stored)
    assert [ROUNDING, 1] in stored.commands and ROUNDING_ERROR in stored.failures[ROUNDING]
    missing = stored.missing_from("## Active Task\nNone.")
    assert ROUNDING_ERROR in render_anchors(missing)
    fallback = fallback_checkpoint(stored, removed=10, reason="test", previous=None)
    assert ROUNDING_ERROR in fallback and stored.missing_from(fallback).commands == []


def test_error_lines_are_read_only_for_commands_that_can_be_kept(monkeypatch):
    calls = []
    real = anchors_mod._error_lines
    monkeypatch.setattr(anchors_mod, "_error_lines", lambda out: calls.append(1) or real(out))
    t = Transcript().user("go")
    for n in range(500):
        t.tool("terminal", {"command": f"pytest tests/test_{n}.py"}, f"E   AssertionError: {n}\n[exit code: 1]")
    extract_anchors(t.build())
    assert len(calls) <= MAX_COMMANDS + MAX_OLDER_FAILURES


def test_echoed_prompt_is_not_accepted_as_a_summary():
    for previous in (None, "## Goal\nearlier"):
        prompt = build_prompt("[USER]: hi", previous=previous, focus=None, budget_tokens=2_000, today="2026-11-22")
        assert (
            rejection_reason(prompt, replaced_tokens=10**9) == "the summary repeats the request instead of answering it"
        )


def _clip_reference(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def test_fast_clip_and_match_count_agree_with_the_plain_versions():
    rng = random.Random(5)
    samples = [
        "",
        "   ",
        " " * 5_000 + "tail",
        "word " * 2_000,
        "12 matches",
        "Found 7 HITS.",
        "rematch 3",
        "3 matchbox 4 matches",
        "x\n10\t results\n",
        "İ 2 results",
    ]
    for _ in range(2_000):
        samples.append(
            "".join(
                rng.choice(["1", "22", " ", "\n", "match", "es", "results", "hits", "ab", "M"])
                for _ in range(rng.randint(0, 30))
            )
        )
    for text in samples:
        for limit in (1, 60, 80):
            assert clip_line(text, limit) == _clip_reference(text, limit)
        found = MATCH_COUNT.search(text)
        assert reported_count(text) == (int(found.group(1)) if found else None), text


def test_reference_id_is_short_stable_and_content_derived():
    a = {"role": "tool", "tool_call_id": "c1", "content": "x" * 10_000}
    assert re.fullmatch(r"r[0-9a-f]{10}", reference_id(a))
    assert reference_id(dict(a)) == reference_id(a)
    assert reference_id({**a, "content": "y"}) != reference_id(a)


# -- found by tests/test_properties.py ---------------------------------------------------

import asyncio  # noqa: E402

from hermeslite.context import CompressionConfig, ContextCompressor  # noqa: E402
from hermeslite.context.assemble import unwrap_handoffs  # noqa: E402
from hermeslite.context.handoff import END, OPEN, merge_into, split_handoff  # noqa: E402
from hermeslite.context.messages import SUMMARY_KEY  # noqa: E402
from hermeslite.context.sanitize import sanitize_tool_pairs  # noqa: E402

from ..builders import assert_valid  # noqa: E402

_CHECKPOINT = checkpoint()


def _summarizer(prompts=None):
    async def summarize(prompt, model):
        if prompts is not None:
            prompts.append(prompt)
        return _CHECKPOINT

    return summarize


def _compressor(prompts=None, **cfg):
    return ContextCompressor(
        CompressionConfig(**{"prune_minimum_tokens": 0, "min_summary_tokens": 0, **cfg}),
        context_length=2_000,
        summarize=_summarizer(prompts),
        clock=lambda: 1_000.0,
        today=lambda: "2026-11-22",
    )


def test_sanitize_keeps_one_call_per_id_so_pairs_stay_one_to_one():
    call = {"id": "a", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call, dict(call)]},
        {"role": "tool", "tool_call_id": "a", "content": "out"},
        {"role": "tool", "tool_call_id": "a", "content": "again"},
    ]
    out = sanitize_tool_pairs(msgs)
    assert out[1]["tool_calls"] == [call]
    assert [m.get("tool_call_id") for m in out if m["role"] == "tool"] == ["a"]
    assert sanitize_tool_pairs(out) == out


def test_summary_merged_into_an_empty_message_is_unwrapped_back_to_it():
    call = {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": '{"command": "ls"}'}}
    for original in (
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": ""},
        {"role": "user", "content": "\n\nstarts with blank lines"},
    ):
        merged = merge_into(original, "## Goal\nship it", {})
        restored = unwrap_handoffs([merged])
        assert len(restored) == 1, "the message the summary was merged into disappeared"
        assert restored[0].get("tool_calls") == original.get("tool_calls")
        assert restored[0]["content"] == (original["content"] or "")
        assert split_handoff(merged)[1] == (original["content"] or "")


def test_second_compaction_keeps_a_tool_call_the_first_summary_was_merged_into():
    t = Transcript(None).user("").assistant("").user("")
    t.parallel([("terminal", {"command": "pytest -q"}, "\n[exit code: 0]")] * 3)
    for _ in range(11):
        t.tool("terminal", {"command": "pytest -q"}, "\n[exit code: 0]")
    msgs = t.user("").assistant("").build()
    c = _compressor(threshold=0.5, target_ratio=0.05, protect_first_n=3, protect_last_n=1)
    first = asyncio.run(c.compress(msgs))
    merged = [m for m in first.messages if m.get(SUMMARY_KEY)]
    assert merged and merged[0]["role"] == "assistant" and merged[0].get("tool_calls")
    second = asyncio.run(c.compress(first.messages))
    assert_valid(second.messages)
    kept_ids = {m.get("tool_call_id") for m in second.messages} | {
        m.get("tool_call_id") for m in second.archived.values()
    }
    for result in (m for m in first.messages if m["role"] == "tool"):
        assert result["tool_call_id"] in kept_ids, "a tool result vanished without being archived"


def test_latest_ask_inside_the_protected_head_still_comes_after_the_summary():
    t = Transcript("sys").user("do the thing")
    for n in range(12):
        t.tool("terminal", {"command": f"step {n}"}, f"output {n}\n" * 30 + "[exit code: 0]")
    msgs = t.assistant("done").user("and now the next thing").build()
    for force in (False, True):
        r = asyncio.run(_compressor(protect_first_n=3).compress(msgs, force=force))
        assert r.summary
        assert_valid(r.messages)
        last_user = [m for m in r.messages if m["role"] == "user"][-1]
        assert last_user["content"] == "and now the next thing" or last_user["content"].endswith(
            f"{END}\n\nand now the next thing"
        )
        assert r.messages.index(last_user) >= next(i for i, m in enumerate(r.messages) if OPEN in str(m["content"]))


def test_a_session_that_is_one_long_turn_is_never_summarized():
    t = Transcript("sys").user("do the thing")
    for n in range(12):
        t.tool("terminal", {"command": f"step {n}"}, f"output {n}\n" * 30 + "[exit code: 0]")
    msgs = t.build()
    for force in (False, True):
        r = asyncio.run(_compressor(protect_first_n=3).compress(msgs, force=force))
        assert r.summary is None and r.dropped == 0
        assert_valid(r.messages)
        assert r.messages[1]["content"] == "do the thing"
        calls = [c["id"] for m in r.messages for c in m.get("tool_calls") or []]
        answered = [m["tool_call_id"] for m in r.messages if m["role"] == "tool"]
        assert calls == answered == [c["id"] for m in msgs for c in m.get("tool_calls") or []]


def test_second_compaction_does_not_join_two_assistant_messages_around_the_old_summary():
    image = [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo"}},
    ]
    t = Transcript(None).user("x" * 100).assistant("ok").user("").assistant("").user("").assistant("").user(image)
    msgs = t.assistant("a" * 150).user("b" * 150).assistant("c" * 150).user("d" * 150).build()
    c = _compressor(threshold=0.5, target_ratio=0.2, protect_first_n=2, protect_last_n=1)
    first = asyncio.run(c.compress(msgs))
    roles = [m["role"] for m in first.messages]
    at = next(i for i, m in enumerate(first.messages) if m.get(SUMMARY_KEY))
    assert roles[at - 1 : at + 2] == ["assistant", "user", "assistant"]  # the summary stands between two replies
    second = asyncio.run(c.compress(first.messages))
    assert_valid(second.messages)


def test_focus_topic_is_redacted_before_it_reaches_the_summarizer():
    key = "ghp_" + "a1B2c3D4e5" * 4
    prompts: list[str] = []
    asyncio.run(
        _compressor(prompts).compress(agent_session_for_focus(), focus_topic=f"the deploy using {key}", force=True)
    )
    assert prompts and all(key not in p for p in prompts)
    assert "the deploy using" in prompts[0]


def agent_session_for_focus():
    t = Transcript().user("Deploy the service.")
    for n in range(6):
        t.tool("terminal", {"command": f"make deploy-{n}"}, "ok\n" * 200 + "[exit code: 0]")
    return t.assistant("Deployed.").user("Is it up?").build()
