"""Stream assembly for the shapes real servers send, fed directly as chunk objects."""

from __future__ import annotations

import json
from types import SimpleNamespace as NS

from hermeslite.context.call_ids import unique_ids
from hermeslite.llm.completion_assembly import Assembler


def chunk(content=None, tool_calls=None, finish=None, usage=None, choices=True):
    delta = NS(content=content, tool_calls=tool_calls)
    return NS(choices=[NS(delta=delta, finish_reason=finish)] if choices else [], usage=usage)


def call(index=None, id=None, name=None, arguments=None):
    return NS(index=index, id=id, function=NS(name=name, arguments=arguments))


def assemble(*chunks):
    asm = Assembler()
    shown = [asm.add(c) for c in chunks]
    return asm.finish(), [s for s in shown if s]


def test_usage_only_chunk_and_missing_finish_reason():
    done, shown = assemble(chunk("a"), chunk("b"), chunk(choices=False, usage=NS(prompt_tokens=9, completion_tokens=2)))
    assert shown == ["a", "b"]
    assert done.message == {"role": "assistant", "content": "ab"}
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (9, 2)
    assert done.finish_reason == "stop"


def test_calls_without_index_follow_their_id():
    done, _ = assemble(
        chunk(tool_calls=[call(id="a", name="terminal", arguments='{"cmd"')]),
        chunk(tool_calls=[call(id="b", name="read_file", arguments='{"path": "x"}')]),
        chunk(tool_calls=[call(id="a", arguments=': "ls"}')]),
        chunk(finish="tool_calls"),
    )
    calls = done.message["tool_calls"]
    assert [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("a", "terminal", {"cmd": "ls"}),
        ("b", "read_file", {"path": "x"}),
    ]


def test_repeated_names_missing_ids_and_empty_arguments():
    done, _ = assemble(
        chunk(tool_calls=[call(index=0, name="todo", arguments="")]),
        chunk(tool_calls=[call(index=0, name="todo", arguments="")]),
    )
    (only,) = done.message["tool_calls"]
    assert only["function"] == {"name": "todo", "arguments": "{}"}
    assert only["id"].startswith("call_") and only["type"] == "function"
    assert done.message["content"] is None and done.finish_reason == "tool_calls"


def test_dict_arguments_and_arguments_sent_twice():
    done, _ = assemble(
        chunk(tool_calls=[{"index": 0, "id": "x", "function": {"name": "memory", "arguments": {"k": 1}}}]),
        chunk(tool_calls=[call(index=1, id="y", name="terminal", arguments='{"cmd": "ls"}')]),
        chunk(tool_calls=[call(index=1, arguments='{"cmd": "ls"}')]),
    )
    assert [c["function"]["arguments"] for c in done.message["tool_calls"]] == ['{"k": 1}', '{"cmd": "ls"}']


def test_lone_surrogates_in_text_and_arguments_become_replacement_characters():
    """A pair split across two chunks arrives as two lone halves; neither may reach the terminal or the store."""
    done, shown = assemble(
        chunk("smile \ud83d"),
        chunk("\ude00 done"),
        chunk(tool_calls=[call(index=0, id="a", name="write_file", arguments='{"path": "x", "content": "\ud800"}')]),
    )
    assert shown == ["smile \ufffd", "\ufffd done"]
    assert done.message["content"] == "smile \ufffd\ufffd done"
    assert json.loads(done.message["tool_calls"][0]["function"]["arguments"]) == {"path": "x", "content": "\ufffd"}


def test_a_repeated_id_never_takes_the_id_of_a_later_call():
    calls = [{"id": i, "type": "function", "function": {"name": "todo", "arguments": "{}"}} for i in ("a", "a", "a_2")]
    assert [c["id"] for c in unique_ids(calls)] == ["a", "a_3", "a_2"]
