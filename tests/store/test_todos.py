"""TodoList and snapshot attach/strip over transcripts."""

from __future__ import annotations

import copy
import json

import pytest

from hermeslite.store.todos import (
    MAX_CONTENT_CHARS,
    MAX_ITEMS,
    SNAPSHOT_CLOSE,
    SNAPSHOT_HEADER,
    SNAPSHOT_OPEN,
    TodoError,
    TodoItem,
    TodoList,
    attach_snapshot,
    strip_snapshots,
)


def items(*triples):
    return [{"id": i, "content": c, "status": s} for i, c, s in triples]


def test_replace_mode_replaces_the_list():
    todos = TodoList()
    todos.write(items(("1", "a", "pending"), ("2", "b", "pending")))
    todos.write(items(("3", "c", "in_progress")))
    assert [(i.id, i.content, i.status) for i in todos.items] == [("3", "c", "in_progress")]


def test_merge_upserts_by_id_keeping_order_and_appending_new():
    todos = TodoList()
    todos.write(items(("1", "a", "pending"), ("2", "b", "pending"), ("3", "c", "pending")))
    todos.write(
        [
            {"id": "4", "content": "d"},
            {"id": "2", "status": "completed"},
            {"id": "1", "content": "a!", "status": "in_progress"},
        ],
        merge=True,
    )
    assert [(i.id, i.content, i.status) for i in todos.items] == [
        ("1", "a!", "in_progress"),
        ("2", "b", "completed"),
        ("3", "c", "pending"),
        ("4", "d", "pending"),
    ]


def test_integer_ids_are_accepted_as_strings():
    todos = TodoList()
    todos.write([{"id": 1, "content": "a"}])
    assert todos.items[0].id == "1"


@pytest.mark.parametrize(
    "bad, word",
    [
        (items(("1", "a", "done")), "status"),
        ([{"content": "a"}], "missing id"),
        ([{"id": "1"}], "missing content"),
        ([{"id": "1", "content": "   "}], "missing content"),
        (items(("1", "a", "pending"), ("1", "b", "pending")), "duplicate"),
        ([{"id": "1", "content": "x" * (MAX_CONTENT_CHARS + 1)}], "limit"),
        ([{"id": str(n), "content": "t"} for n in range(MAX_ITEMS + 1)], "at most"),
        (["just a string"], "object"),
        ("not a list", "array"),
    ],
)
def test_validation_errors_leave_the_list_unchanged(bad, word):
    todos = TodoList()
    todos.write(items(("keep", "me", "pending")))
    with pytest.raises(TodoError) as err:
        todos.write(bad)
    assert word in str(err.value)
    assert [i.id for i in todos.items] == ["keep"]


def test_merge_new_item_still_needs_content_and_total_is_capped():
    todos = TodoList()
    with pytest.raises(TodoError):
        todos.write([{"id": "new", "status": "pending"}], merge=True)
    todos.write([{"id": str(n), "content": "t"} for n in range(MAX_ITEMS)])
    with pytest.raises(TodoError):
        todos.write([{"id": "one more", "content": "t"}], merge=True)
    assert len(todos) == MAX_ITEMS


def test_exactly_max_items_and_max_content_are_fine():
    todos = TodoList()
    todos.write([{"id": str(n), "content": "x" * MAX_CONTENT_CHARS} for n in range(MAX_ITEMS)])
    assert len(todos) == MAX_ITEMS


def test_active_and_snapshot_text():
    todos = TodoList()
    assert todos.snapshot_text() is None
    todos.write(
        items(
            ("1", "Read the code", "completed"),
            ("2", "Fix the bug", "in_progress"),
            ("3", "Write tests", "pending"),
            ("4", "Old idea", "cancelled"),
        )
    )
    assert [i.id for i in todos.active()] == ["2", "3"]
    assert todos.snapshot_text() == (f"{SNAPSHOT_HEADER}\n- [>] Fix the bug (in_progress)\n- [ ] Write tests (pending)")
    todos.write([{"id": "2", "status": "completed"}, {"id": "3", "status": "cancelled"}], merge=True)
    assert todos.snapshot_text() is None


def test_items_are_copies():
    todos = TodoList()
    todos.write(items(("1", "a", "pending")))
    todos.items[0].status = "completed"
    todos.active()[0].content = "changed"
    assert todos.items[0] == TodoItem("1", "a", "pending")


def test_json_round_trip_and_tolerant_load():
    todos = TodoList()
    todos.write(items(("1", "ünïcode", "in_progress"), ("2", "b", "completed")))
    again = TodoList.from_json(todos.to_json())
    assert again.items == todos.items
    assert TodoList.from_json(None).items == []
    assert TodoList.from_json("").items == []
    assert TodoList.from_json("{not json").items == []
    mixed = json.dumps([{"id": "1", "content": "ok"}, {"id": "2", "status": "weird", "content": "x"}, 5])
    assert [i.id for i in TodoList.from_json(mixed).items] == ["1"]


def test_render_has_counts_ids_and_marks():
    todos = TodoList()
    assert "empty" in todos.render()
    todos.write(items(("a", "one", "completed"), ("b", "two", "in_progress"), ("c", "three", "pending")))
    text = todos.render()
    assert "3 items" in text and "1 in progress" in text and "1 pending" in text and "1 completed" in text
    assert "- [x] a. one (completed)" in text and "- [>] b. two (in_progress)" in text


# ------------------------------------------------------------------ snapshot injection

SNAP1 = f"{SNAPSHOT_HEADER}\n- [>] first (in_progress)"
SNAP2 = f"{SNAPSHOT_HEADER}\n- [ ] second (pending)"


def transcript():
    return [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "first ask"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "todo", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "second ask", "_hl_ref": "r0000000000"},
        {"role": "assistant", "content": "working"},
    ]


def test_attach_goes_on_last_user_message_after_blank_line():
    msgs = transcript()
    out = attach_snapshot(msgs, SNAP1)
    assert len(out) == len(msgs)
    assert out[5]["content"] == f"second ask\n\n{SNAPSHOT_OPEN}\n{SNAP1}\n{SNAPSHOT_CLOSE}"
    assert out[5]["_hl_ref"] == "r0000000000"
    assert [m for i, m in enumerate(out) if i != 5] == [m for i, m in enumerate(msgs) if i != 5]


def test_two_attachments_leave_exactly_one_snapshot_on_the_last_user_message():
    once = attach_snapshot(transcript(), SNAP1)
    grown = [*once, {"role": "user", "content": "third ask"}]
    twice = attach_snapshot(grown, SNAP2)
    assert len(twice) == len(grown)
    dumped = json.dumps(twice)
    assert dumped.count("[todo snapshot]") == 1 and dumped.count("[/todo snapshot]") == 1
    assert "first (in_progress)" not in dumped
    assert twice[5]["content"] == "second ask"
    assert twice[-1]["content"].startswith("third ask\n\n[todo snapshot]\n")
    assert "second (pending)" in twice[-1]["content"]


def test_reattaching_to_the_same_message_replaces_not_stacks():
    out = attach_snapshot(attach_snapshot(transcript(), SNAP1), SNAP2)
    assert out[5]["content"] == f"second ask\n\n{SNAPSHOT_OPEN}\n{SNAP2}\n{SNAPSHOT_CLOSE}"


def test_snapshots_elsewhere_are_stripped_too():
    msgs = transcript()
    msgs[4] = {"role": "assistant", "content": f"done\n\n{SNAPSHOT_OPEN}\n{SNAP1}\n{SNAPSHOT_CLOSE}"}
    msgs[1] = {"role": "user", "content": f"first ask\n\n{SNAPSHOT_OPEN}\nold\n{SNAPSHOT_CLOSE}"}
    out = attach_snapshot(msgs, SNAP2)
    assert out[4]["content"] == "done" and out[1]["content"] == "first ask"
    assert json.dumps(out).count("[todo snapshot]") == 1


def test_list_content_gets_a_text_part_that_is_removed_again():
    msgs = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:x"}}],
        }
    ]
    out = attach_snapshot(msgs, SNAP1)
    assert out[0]["content"][:2] == msgs[0]["content"]
    assert out[0]["content"][2] == {"type": "text", "text": f"{SNAPSHOT_OPEN}\n{SNAP1}\n{SNAPSHOT_CLOSE}"}
    again = attach_snapshot(out, SNAP2)
    assert len(again[0]["content"]) == 3 and "second" in again[0]["content"][2]["text"]
    assert strip_snapshots(again) == msgs


def test_empty_or_none_user_content():
    out = attach_snapshot([{"role": "user", "content": None}], SNAP1)
    assert out[0]["content"] == f"{SNAPSHOT_OPEN}\n{SNAP1}\n{SNAPSHOT_CLOSE}"


def test_no_user_message_returns_unchanged_copy():
    msgs = [{"role": "system", "content": "s"}, {"role": "assistant", "content": "a"}]
    out = attach_snapshot(msgs, SNAP1)
    assert out == msgs and out is not msgs


def test_none_text_only_strips():
    with_snap = attach_snapshot(transcript(), SNAP1)
    assert attach_snapshot(with_snap, None) == transcript()
    assert strip_snapshots(with_snap) == transcript()


def test_input_is_never_mutated():
    msgs = transcript()
    msgs.append({"role": "user", "content": [{"type": "text", "text": "x"}]})
    before = copy.deepcopy(msgs)
    once = attach_snapshot(msgs, SNAP1)
    snapshot_of_once = copy.deepcopy(once)
    attach_snapshot(once, SNAP2)
    strip_snapshots(once)
    assert msgs == before and once == snapshot_of_once


def test_user_text_that_mentions_the_marker_alone_is_left_alone():
    msgs = [{"role": "user", "content": "what is a [todo snapshot] anyway?"}]
    assert strip_snapshots(msgs) == msgs
