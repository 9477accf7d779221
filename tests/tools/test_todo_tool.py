"""The todo tool: reads and writes the TodoList, and every refused write is a result."""

from __future__ import annotations

import json
from pathlib import Path

from hermeslite.store.todos import TodoList
from hermeslite.tools.base import ToolContext
from hermeslite.tools.todo import TodoTool


def items(*triples):
    return [{"id": i, "content": c, "status": s} for i, c, s in triples]


def ctx():
    return ToolContext(cwd=Path("."))


async def test_tool_write_read_merge():
    todos = TodoList()
    tool = TodoTool(todos)
    assert tool.name == "todo" and set(tool.parameters["properties"]) == {"todos", "merge"}
    r = await tool.run({"todos": items(("1", "a", "in_progress"), ("2", "b", "pending"))}, ctx())
    assert not r.is_error and "2 items" in r.content
    r = await tool.run({"todos": [{"id": "1", "status": "completed"}], "merge": True}, ctx())
    assert "1 completed" in r.content and "2 items" in r.content
    r = await tool.run({}, ctx())
    assert r.content == todos.render()


async def test_tool_errors_are_results_and_do_not_change_the_list():
    todos = TodoList()
    tool = TodoTool(todos)
    await tool.run({"todos": items(("1", "a", "pending"))}, ctx())
    refusals = [
        (
            {"todos": items(("1", "a", "finished"))},
            "error: item 1 (id '1'): status 'finished' is not one of pending, in_progress, completed, cancelled. "
            "The list was not changed.",
        ),
        ({"todos": "x"}, "error: todos must be an array of {id, content, status} objects. The list was not changed."),
        ({"todos": [], "merge": "yes"}, "error: merge must be true or false"),
    ]
    for args, message in refusals:
        r = await tool.run(args, ctx())
        assert r.is_error and r.content == message
        assert [(i.id, i.content, i.status) for i in todos.items] == [("1", "a", "pending")]


async def test_tool_empty_list_clears_and_on_change_persists():
    saved = []
    todos = TodoList()
    tool = TodoTool(todos, on_change=lambda t: saved.append(t.to_json()))
    await tool.run({"todos": items(("1", "a", "pending"))}, ctx())
    await tool.run({"todos": []}, ctx())
    assert len(todos) == 0 and len(saved) == 2 and json.loads(saved[-1]) == []
