"""The `todo` tool: the model writes and reads its task list.

The list itself, its rules and the snapshot kept across compaction live in
store/todos.py; this module is the schema the model sees and the result text
it reads back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from hermeslite.context.tool_roles import ToolRole
from hermeslite.store.todos import STATUSES, TodoError, TodoList
from hermeslite.tools.base import ToolContext, ToolResult

TODO_DESCRIPTION = """\
Keep a task list for multi-step work (3+ steps, or when the user gives several tasks). The active items \
survive context compaction, so the list is how you keep track of long tasks.
Pass `todos` as an array of {id, content, status}; status is pending, in_progress, completed or \
cancelled. merge=false (default) replaces the whole list; merge=true updates items by id (content or \
status may be left out to keep them) and appends new ids. Keep at most one item in_progress, and mark \
items completed as soon as they are done. Call with no arguments to see the current list."""


class TodoTool:
    """The `todo` tool over a TodoList; `on_change` is called after every successful write (e.g. to persist)."""

    name = "todo"
    role: ToolRole | None = None  # nothing the compaction engine treats specially
    writes = False  # the list is kept in the session store
    description = TODO_DESCRIPTION
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "the items to write; leave out to read the current list",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": 'short unique id, e.g. "1"'},
                        "content": {"type": "string", "description": "what to do, one line"},
                        "status": {"type": "string", "enum": list(STATUSES)},
                    },
                    "required": ["id"],
                },
            },
            "merge": {
                "type": "boolean",
                "default": False,
                "description": "true: update/append by id; false: replace the whole list",
            },
        },
        "additionalProperties": False,
    }

    def __init__(self, todo_list: TodoList, on_change: Callable[[TodoList], None] | None = None) -> None:
        self.todo_list = todo_list
        self.on_change = on_change

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        args = args if isinstance(args, dict) else {}
        todos = args.get("todos")
        if todos is None:
            return ToolResult(self.todo_list.render())
        merge = args.get("merge", False)
        if not isinstance(merge, bool):
            return ToolResult.error("merge must be true or false")
        try:
            self.todo_list.write(todos, merge=merge)
        except TodoError as exc:
            return ToolResult.error(f"{exc}. The list was not changed.")
        if self.on_change is not None:
            try:
                self.on_change(self.todo_list)
            except Exception as exc:  # persisting failed; the list itself is updated
                return ToolResult(f"{self.todo_list.render()}\n(warning: could not save the list: {exc})")
        return ToolResult(self.todo_list.render())
