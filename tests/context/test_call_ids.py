"""Calls sharing an id within one assistant message get their own ids; their results follow in order."""

from hermeslite.context.call_ids import unique_call_ids


def call(i: str, n: int) -> dict:
    return {"id": i, "type": "function", "function": {"name": "read_file", "arguments": f'{{"n": {n}}}'}}


def result(i: str, n: int) -> dict:
    return {"role": "tool", "tool_call_id": i, "content": f"result {n}"}


def test_the_kth_result_of_an_id_answers_the_kth_call_and_other_messages_are_untouched():
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("x", 0), call("x", 1), call("y", 2)]},
        result("x", 0),
        result("y", 2),
        result("x", 1),
        {"role": "assistant", "content": None, "tool_calls": [call("x", 3)]},
        result("x", 3),
    ]
    fixed = unique_call_ids(messages)
    assert [c["id"] for c in fixed[1]["tool_calls"]] == ["x", "x_2", "y"]
    assert [(m["tool_call_id"], m["content"]) for m in fixed[2:5]] == [
        ("x", "result 0"),
        ("y", "result 2"),
        ("x_2", "result 1"),
    ]
    assert fixed[5:] == messages[5:], "an id used again in a later message is that message's own"
    assert messages[1]["tool_calls"][1]["id"] == "x", "the input is not changed"
