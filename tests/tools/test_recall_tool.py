"""The recall tool: archived originals back by reference id."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.context.messages import reference_id
from hermeslite.context.prune import recall_note
from hermeslite.store.archive_search import EXCERPT_CHARS
from hermeslite.store.archive_text import RECALL_LIMIT, cap, render_original
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.base import ToolContext
from hermeslite.tools.recall import RecallTool


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "s.db")
    yield s
    s.close()


def ctx():
    return ToolContext(cwd=Path("."))


CALL = {"id": "call_7", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}


def test_tool_shape_offers_both_forms(store: SessionStore):
    tool = RecallTool(store, lambda: None)
    assert tool.name == "recall" and set(tool.parameters["properties"]) == {"id", "query"}
    assert "required" not in tool.parameters
    assert "recall id" in tool.description and 'query="' in tool.description and 'id="' in tool.description


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
    store.archive(
        sid,
        {
            "r000000000a": {"role": "assistant", "content": None, "tool_calls": [CALL]},
            "r000000000b": {"role": "tool", "tool_call_id": "call_7", "content": "body"},
        },
    )
    result = await RecallTool(store, lambda: sid).run({"id": "r000000000b"}, ctx())
    assert result.content.startswith("[original output of read_file call call_7]\nbody")


async def test_unknown_tool_name_and_assistant_arguments(store: SessionStore):
    sid = store.create_session("m", "/w")
    long_args = '{"content": "' + "x" * 2000 + '"}'
    store.archive(
        sid,
        {
            "r00000000a1": {"role": "tool", "tool_call_id": "gone", "content": "out"},
            "r00000000a2": {
                "role": "assistant",
                "content": "writing",
                "tool_calls": [
                    {"id": "w1", "type": "function", "function": {"name": "write_file", "arguments": long_args}}
                ],
            },
        },
    )
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


ASK_FOR_ONE = 'error: give query="words to search for" or id="r0123456789"'


@pytest.mark.parametrize(
    "args, message",
    [
        ({}, ASK_FOR_ONE),
        ({"id": ""}, ASK_FOR_ONE),
        ({"query": "  "}, ASK_FOR_ONE),
        (
            {"id": "r9999999999"},
            "error: nothing archived under 'r9999999999' in this session; copy the id exactly from the placeholder "
            "or search result (r followed by 10 hex digits), or search with query=",
        ),
        ({"query": "*** -- ()"}, 'error: the query "*** -- ()" has no words or numbers to search for'),
    ],
)
async def test_a_call_that_names_nothing_recallable_says_how_to_ask(store: SessionStore, args, message):
    sid = store.create_session("m", "/w")
    r = await RecallTool(store, lambda: sid).run(args, ctx())
    assert r.is_error and r.content == message


async def test_recall_without_a_saved_session_says_so(store: SessionStore):
    r = await RecallTool(store, lambda: None).run({"id": "r0123456789"}, ctx())
    assert r.is_error and r.content == "error: there is no saved session to recall from"


async def test_an_unreadable_archive_is_a_result_naming_the_cause(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.close()
    r = await RecallTool(store, lambda: sid).run({"id": "r0123456789"}, ctx())
    assert r.is_error and r.content == "error: could not read the session archive: Cannot operate on a closed database."


async def test_recall_is_scoped_to_the_current_session(store: SessionStore):
    a, b = store.create_session("m", "/w"), store.create_session("m", "/w")
    store.archive(a, {"r0000000abc": {"role": "user", "content": "secret of a"}})
    r = await RecallTool(store, lambda: b).run({"id": "r0000000abc"}, ctx())
    assert r.is_error and "nothing archived under 'r0000000abc' in this session" in r.content


def test_render_original_mentions_images():
    msg = {
        "role": "user",
        "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:x"}}],
    }
    assert (
        render_original(msg) == "[original user message]\nsee\n[1 image(s) in the original cannot be returned as text]"
    )
    assert "no text" in render_original({"role": "assistant", "content": None})


# -- the query form -------------------------------------------------------------------------------


def registry_with(store: SessionStore, sid: str | None):
    from hermeslite.tools.registry import default_registry

    return default_registry(extra_tools=[RecallTool(store, lambda: sid)])


async def test_an_archived_checkpoint_is_labelled_as_one_not_as_a_user_message(store: SessionStore):
    """A checkpoint sits in a user-role message, but no one typed it."""
    sid = store.create_session("m", "/w")
    checkpoint = {"role": "user", "content": "## Goal\nship the parser rewrite", "_hl_summary": True}
    store.archive(
        sid, {"r00000000b1": checkpoint, "r00000000b2": {"role": "user", "content": "the parser rewrite, please"}}
    )
    result = await registry_with(store, sid).execute("recall", '{"query": "parser rewrite"}', ctx())
    labels = {line.split(" · ")[0].split(". ")[1]: line.split(" · ")[1] for line in result.content.splitlines()[1::2]}
    assert labels == {"r00000000b1": "earlier checkpoint", "r00000000b2": "user message"}
    whole = await registry_with(store, sid).execute("recall", {"id": "r00000000b1"}, ctx())
    assert whole.content.splitlines()[0] == "[original earlier checkpoint]"


async def test_query_form_through_the_registry_lists_ids_kinds_and_excerpts(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(
        sid,
        {
            "r00000000a1": {
                "role": "tool",
                "tool_call_id": "c1",
                "name": "terminal",
                "content": "export done\nthe build token is XK-4471-QZ\n[exit code: 0]",
            },
            "r00000000a2": {"role": "user", "content": "please rotate the build token next week"},
            "r00000000a3": {"role": "tool", "tool_call_id": "c2", "name": "read_file", "content": "unrelated = 1"},
        },
    )
    result = await registry_with(store, sid).execute("recall", '{"query": "build token XK-4471-QZ"}', ctx())
    assert not result.is_error
    lines = result.content.splitlines()
    assert lines[0].startswith('2 matches for "build token XK-4471-QZ" among 3 compacted original(s)')
    assert 'recall(id="…")' in lines[0]
    assert lines[1] == "1. r00000000a1 · output of terminal" and "XK-4471-QZ" in lines[2]
    assert lines[3] == "2. r00000000a2 · user message" and "rotate the build token" in lines[4]
    assert "r00000000a3" not in result.content
    whole = await registry_with(store, sid).execute("recall", {"id": "r00000000a1"}, ctx())
    assert (
        whole.content
        == "[original output of terminal call c1]\nexport done\nthe build token is XK-4471-QZ\n[exit code: 0]"
    )


async def test_query_results_are_bounded(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(
        sid,
        {
            f"r{n:010x}": {
                "role": "tool",
                "tool_call_id": f"c{n}",
                "name": "terminal",
                "content": f"retry {n} " + "word " * 5_000,
            }
            for n in range(30)
        },
    )
    result = await RecallTool(store, lambda: sid).run({"query": "retry"}, ctx())
    assert result.content.startswith('The best 5 matches for "retry" among 30 compacted original(s)')
    assert result.content.count(" · output of terminal") == 5
    assert len(result.content) < 5 * (EXCERPT_CHARS + 60) + 200


async def test_query_without_match_or_without_archive_says_so(store: SessionStore):
    sid = store.create_session("m", "/w")
    tool = RecallTool(store, lambda: sid)
    empty = await tool.run({"query": "anything"}, ctx())
    assert not empty.is_error and "nothing to search" in empty.content
    store.archive(sid, {"r0000000001": {"role": "user", "content": "hello there"}})
    miss = await tool.run({"query": "kubernetes"}, ctx())
    assert not miss.is_error
    assert miss.content.startswith('No match for "kubernetes" among the 1 compacted original(s)')


@pytest.mark.parametrize(
    ("query", "shown"),
    [('"deploy key"', "'\"deploy key\"'"), ('it\'s "here"', '\u201cit\'s "here"\u201d')],
)
async def test_a_query_with_quote_marks_is_quoted_with_others(store: SessionStore, query: str, shown: str):
    sid = store.create_session("m", "/w")
    store.archive(sid, {"r0000000001": {"role": "user", "content": "hello there"}})
    miss = await RecallTool(store, lambda: sid).run({"query": query}, ctx())
    assert miss.content.startswith(f"No match for {shown} among")


async def test_id_wins_when_both_forms_are_given(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(
        sid, {"r0000000001": {"role": "user", "content": "first"}, "r0000000002": {"role": "user", "content": "second"}}
    )
    result = await RecallTool(store, lambda: sid).run({"id": "r0000000001", "query": "second"}, ctx())
    assert result.content == "[original user message]\nfirst"


def test_a_pruned_query_result_is_summarized_as_a_search():
    from hermeslite.context.tool_summaries import summarize_tool_result

    out = '2 matches for "x" among 9 compacted original(s), best first; recall(id="…") returns one whole:\n1. r…'
    assert (
        summarize_tool_result("recall", {"query": "build token"}, out)
        == "[recall] searched the archive for 'build token' -> 2 matches"
    )
    assert (
        summarize_tool_result("recall", {"id": "r0123456789"}, "x" * 10) == "[recall] recalled r0123456789 (10 chars)"
    )
