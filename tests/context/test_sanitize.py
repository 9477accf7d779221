"""sanitize_tool_pairs: one result per call, no orphans, alternation kept."""

from hermeslite.context import sanitize_tool_pairs
from hermeslite.context.sanitize import REMOVED_CALL_TEXT


def call(i, name="terminal"):
    return {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}}


def result(i, text="ok"):
    return {"role": "tool", "tool_call_id": i, "content": text}


def test_valid_transcript_is_unchanged():
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]},
        result("a"),
        result("b"),
        {"role": "assistant", "content": "done"},
    ]
    assert sanitize_tool_pairs(msgs) == msgs


def test_orphan_result_is_dropped():
    msgs = [{"role": "user", "content": "go"}, result("ghost"), {"role": "assistant", "content": "hi"}]
    assert sanitize_tool_pairs(msgs) == [msgs[0], msgs[2]]


def test_unanswered_call_is_removed_and_placeholder_only_when_empty():
    msgs = [{"role": "user", "content": "go"}, {"role": "assistant", "content": None, "tool_calls": [call("a")]}]
    out = sanitize_tool_pairs(msgs)
    assert "tool_calls" not in out[1] and out[1]["content"] == REMOVED_CALL_TEXT
    with_text = [msgs[0], {"role": "assistant", "content": "Let me look.", "tool_calls": [call("a")]}]
    assert sanitize_tool_pairs(with_text)[1] == {"role": "assistant", "content": "Let me look."}


def test_partially_answered_parallel_calls_keep_the_answered_one():
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]},
        result("b"),
    ]
    out = sanitize_tool_pairs(msgs)
    assert [c["id"] for c in out[1]["tool_calls"]] == ["b"] and out[2] == result("b")


def test_result_after_a_user_message_is_out_of_place():
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("a")]},
        {"role": "user", "content": "wait"},
        result("a"),
    ]
    out = sanitize_tool_pairs(msgs)
    assert all(m["role"] != "tool" for m in out) and "tool_calls" not in out[1]


def test_duplicate_results_keep_the_first_and_call_id_alias_is_honoured():
    alias = {"call_id": "x", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [alias]},
        result("x", "1"),
        result("x", "2"),
    ]
    assert sanitize_tool_pairs(msgs) == msgs[:3]


def test_input_is_not_mutated():
    msgs = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [call("a")]}]
    before = repr(msgs)
    sanitize_tool_pairs(msgs)
    assert repr(msgs) == before
