"""The recall tool: archived originals back by reference id."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.context.messages import reference_id
from hermeslite.context.prune import recall_note
from hermeslite.store.recall import RECALL_LIMIT, RecallTool, cap, render_original
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.base import ToolContext


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "s.db")
    yield s
    s.close()


def ctx():
    return ToolContext(cwd=Path("."))


CALL = {"id": "call_7", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}


def test_tool_shape(store: SessionStore):
    tool = RecallTool(store, lambda: None)
    assert tool.name == "recall" and tool.parameters["required"] == ["id"]
    assert "recall id" in tool.description


async def test_recall_tool_output_names_the_tool_from_the_transcript(store: SessionStore):
    sid = store.create_session("m", "/w")
    original = {"role": "tool", "tool_call_id": "call_7", "content": "print('hello')\n" * 20}
    ref = reference_id(original)
    store.append_message(sid, {"role": "user", "content": "read a.py"})
    store.append_message(sid, {"role": "assistant", "content": None, "tool_calls": [CALL]})
    store.append_message(sid, {"role": "tool", "tool_call_id": "call_7", "content": recall_note(ref), "_hl_ref": ref})
    store.archive(sid, {ref: original})
    result = await RecallTool(store, lambda: sid).run({"id": ref}, ctx())
    assert not result.is_error
    assert result.content == "[original output of read_file call call_7]\n" + original["content"]


async def test_the_whole_placeholder_is_accepted_as_id(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(sid, {"r0123456789": {"role": "user", "content": "the original ask"}})
    result = await RecallTool(store, lambda: sid).run({"id": "[pruned; recall id r0123456789]"}, ctx())
    assert result.content == "[original user message]\nthe original ask"


async def test_tool_name_found_in_archive_when_the_call_was_compacted_away(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(sid, {
        "r000000000a": {"role": "assistant", "content": None, "tool_calls": [CALL]},
        "r000000000b": {"role": "tool", "tool_call_id": "call_7", "content": "body"},
    })
    result = await RecallTool(store, lambda: sid).run({"id": "r000000000b"}, ctx())
    assert result.content.startswith("[original output of read_file call call_7]\nbody")


async def test_unknown_tool_name_and_assistant_arguments(store: SessionStore):
    sid = store.create_session("m", "/w")
    long_args = '{"content": "' + "x" * 2000 + '"}'
    store.archive(sid, {
        "r00000000a1": {"role": "tool", "tool_call_id": "gone", "content": "out"},
        "r00000000a2": {"role": "assistant", "content": "writing",
                        "tool_calls": [{"id": "w1", "type": "function",
                                        "function": {"name": "write_file", "arguments": long_args}}]},
    })
    tool = RecallTool(store, lambda: sid)
    r1 = await tool.run({"id": "r00000000a1"}, ctx())
    assert r1.content == "[original output of a tool call gone]\nout"
    r2 = await tool.run({"id": "r00000000a2"}, ctx())
    assert r2.content.startswith("[original assistant message]\nwriting\n[tool call w1: write_file with arguments ")
    assert long_args in r2.content


async def test_large_output_is_capped_with_a_note(store: SessionStore):
    sid = store.create_session("m", "/w")
    body = "HEAD" + "y" * (RECALL_LIMIT * 2) + "TAIL"
    store.archive(sid, {"r00000000ff": {"role": "tool", "tool_call_id": "c", "name": "terminal", "content": body}})
    result = await RecallTool(store, lambda: sid).run({"id": "r00000000ff"}, ctx())
    assert len(result.content) < RECALL_LIMIT + 200
    assert "HEAD" in result.content and result.content.endswith("TAIL")
    assert "omitted" in result.content and str(RECALL_LIMIT) in result.content
    assert cap("short") == "short"


async def test_errors_are_results(store: SessionStore):
    sid = store.create_session("m", "/w")
    tool = RecallTool(store, lambda: sid)
    for args in ({}, {"id": ""}, {"id": "r9999999999"}):
        r = await tool.run(args, ctx())
        assert r.is_error and r.content.startswith("error: ")
    r = await RecallTool(store, lambda: None).run({"id": "r0123456789"}, ctx())
    assert r.is_error and "session" in r.content
    store.close()
    r = await tool.run({"id": "r0123456789"}, ctx())
    assert r.is_error and r.content.startswith("error: ")


async def test_recall_is_scoped_to_the_current_session(store: SessionStore):
    a, b = store.create_session("m", "/w"), store.create_session("m", "/w")
    store.archive(a, {"r0000000abc": {"role": "user", "content": "secret of a"}})
    r = await RecallTool(store, lambda: b).run({"id": "r0000000abc"}, ctx())
    assert r.is_error


def test_render_original_mentions_images():
    msg = {"role": "user", "content": [{"type": "text", "text": "see"},
                                       {"type": "image_url", "image_url": {"url": "data:x"}}]}
    assert render_original(msg) == "[original user message]\nsee\n[1 image(s) in the original cannot be returned as text]"
    assert "no text" in render_original({"role": "assistant", "content": None})
