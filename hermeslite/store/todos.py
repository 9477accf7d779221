"""The task list the model keeps with the `todo` tool (tools/todo.py), and its snapshot.

A todo list is the thread of a long task. Context compaction may summarize
away the turns where it was written, so after every compaction the agent
re-attaches the active items to the last user message (`attach_snapshot`),
between markers that let the next compaction strip the stale copy first: at
any time the transcript holds at most one snapshot, and never as a message of
its own (that would break the user/assistant alternation).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from hermeslite.context.result import plural

STATUSES = ("pending", "in_progress", "completed", "cancelled")
ACTIVE_STATUSES = ("pending", "in_progress")
MAX_ITEMS = 100
MAX_CONTENT_CHARS = 500

SNAPSHOT_HEADER = "[Active task list, kept across context compaction]"
SNAPSHOT_OPEN = "[todo snapshot]"
SNAPSHOT_CLOSE = "[/todo snapshot]"
_SNAPSHOT_RE = re.compile(r"(?:\n\n)?" + re.escape(SNAPSHOT_OPEN) + r"\n.*?\n" + re.escape(SNAPSHOT_CLOSE), re.DOTALL)

_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]", "cancelled": "[-]"}


class TodoError(ValueError):
    """A `write` the list refused; `str()` is the message for the model. The list is unchanged."""


@dataclass
class TodoItem:
    id: str
    content: str
    status: str = "pending"

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    def line(self) -> str:
        return f"- {_MARKS.get(self.status, '[?]')} {self.content} ({self.status})"


class TodoList:
    """Ordered todo items with unique ids."""

    def __init__(self, items: Iterable[TodoItem] | None = None) -> None:
        self._items: list[TodoItem] = [TodoItem(i.id, i.content, i.status) for i in items or ()]

    @property
    def items(self) -> list[TodoItem]:
        """A copy of the items, in order."""
        return [TodoItem(i.id, i.content, i.status) for i in self._items]

    def __len__(self) -> int:
        return len(self._items)

    def active(self) -> list[TodoItem]:
        return [TodoItem(i.id, i.content, i.status) for i in self._items if i.active]

    def write(self, items: Iterable[TodoItem | dict[str, Any]], merge: bool = False) -> list[TodoItem]:
        """Replace the list (merge=False) or upsert by id (merge=True); returns the new items.

        In merge mode an item naming an existing id may leave out `content` or
        `status` to keep the current value; new ids are appended in the order
        given. Raises TodoError, leaving the list as it was, when any item is
        invalid.
        """
        if isinstance(items, (str, bytes, dict)) or not isinstance(items, Iterable):
            raise TodoError("todos must be an array of {id, content, status} objects")
        current = {item.id: item for item in self._items} if merge else {}
        incoming: list[TodoItem] = []
        seen: set[str] = set()
        problems: list[str] = []
        for n, raw in enumerate(items, 1):
            item, problem = _coerce(raw, n, current)
            if problem:
                problems.append(problem)
                continue
            assert item is not None
            if item.id in seen:
                problems.append(f"item {n}: duplicate id {item.id!r}")
                continue
            seen.add(item.id)
            incoming.append(item)
        if problems:
            raise TodoError("; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
        if merge:
            updates = {item.id: item for item in incoming}
            result = [updates.pop(item.id, item) for item in self._items]
            result += [item for item in incoming if item.id in updates]
        else:
            result = incoming
        if len(result) > MAX_ITEMS:
            raise TodoError(f"a todo list holds at most {MAX_ITEMS} items; this would make {len(result)}")
        self._items = result
        return self.items

    def clear(self) -> None:
        self._items = []

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for i in self._items if i.status == status) for status in STATUSES}

    def render(self) -> str:
        """The whole list with ids and counts, as the todo tool shows it."""
        if not self._items:
            return "Todo list is empty."
        c = self.counts()
        head = (
            f"Todo list: {plural(len(self._items), 'item')} ({c['in_progress']} in progress, {c['pending']} pending, "
            f"{c['completed']} completed, {c['cancelled']} cancelled)"
        )
        return "\n".join([head] + [f"- {_MARKS[i.status]} {i.id}. {i.content} ({i.status})" for i in self._items])

    def snapshot_text(self) -> str | None:
        """The active items for re-injection after compaction, or None when nothing is active."""
        active = self.active()
        if not active:
            return None
        return "\n".join([SNAPSHOT_HEADER] + [item.line() for item in active])

    def to_json(self) -> str:
        return json.dumps([asdict(item) for item in self._items], ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> TodoList:
        """A list from `to_json` output; empty for None, "" or unreadable data, skipping bad items."""
        try:
            data = json.loads(text) if text else []
        except (TypeError, ValueError):
            return cls()
        items: list[TodoItem] = []
        seen: set[str] = set()
        for raw in data if isinstance(data, list) else []:
            item, problem = _coerce(raw, 0, {})
            if item is not None and not problem and item.id not in seen:
                seen.add(item.id)
                items.append(item)
        return cls(items[:MAX_ITEMS])


def _coerce(raw: Any, n: int, current: dict[str, TodoItem]) -> tuple[TodoItem | None, str | None]:
    """A validated TodoItem from a dict (or TodoItem), or a problem naming item `n`."""
    if isinstance(raw, TodoItem):
        raw = asdict(raw)
    if not isinstance(raw, dict):
        return None, f"item {n}: must be an object with id, content and status"
    raw_id = raw.get("id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or not str(raw_id).strip():
        return None, f"item {n}: missing id"
    item_id = str(raw_id).strip()
    existing = current.get(item_id)
    content = raw.get("content")
    if content is None and existing is not None:
        content = existing.content
    if not isinstance(content, str) or not content.strip():
        return None, f"item {n} (id {item_id!r}): missing content"
    content = content.strip()
    if len(content) > MAX_CONTENT_CHARS:
        return None, f"item {n} (id {item_id!r}): content is {len(content)} chars, the limit is {MAX_CONTENT_CHARS}"
    status = raw.get("status")
    if status is None:
        status = existing.status if existing is not None else "pending"
    if status not in STATUSES:
        return None, f"item {n} (id {item_id!r}): status {status!r} is not one of {', '.join(STATUSES)}"
    return TodoItem(item_id, content, status), None


# ------------------------------------------------------------------ snapshot injection


def _strip_text(text: str) -> str:
    return _SNAPSHOT_RE.sub("", text)


def _has_snapshot(content: Any) -> bool:
    if isinstance(content, str):
        return SNAPSHOT_OPEN in content
    if isinstance(content, list):
        return any(isinstance(p, dict) and SNAPSHOT_OPEN in str(p.get("text", "")) for p in content)
    return False


def _strip_content(content: Any) -> Any:
    if isinstance(content, str):
        return _strip_text(content)
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text" and SNAPSHOT_OPEN in str(part.get("text", "")):
            text = _strip_text(str(part["text"]))
            if not text.strip() and text != part["text"]:
                continue  # the part was only the snapshot: drop it
            part = {**part, "text": text}
        parts.append(part)
    return parts


def strip_snapshots(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy with every todo snapshot removed from every message's content."""
    out = []
    for msg in messages:
        if _has_snapshot(msg.get("content")):
            msg = {**msg, "content": _strip_content(msg["content"])}
        out.append(msg)
    return out


def attach_snapshot(messages: list[dict[str, Any]], text: str | None) -> list[dict[str, Any]]:
    """A copy with older snapshots stripped and `text` attached to the last user message.

    With no user message the transcript comes back unchanged (a copy); with
    no text, older snapshots are only stripped. Never adds a message.
    """
    last_user = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"), None)
    if last_user is None:
        return list(messages)
    out = strip_snapshots(messages)
    if not text or not text.strip():
        return out
    block = f"{SNAPSHOT_OPEN}\n{text.strip()}\n{SNAPSHOT_CLOSE}"
    msg = out[last_user]
    content = msg.get("content")
    if isinstance(content, list):
        new_content: Any = [*content, {"type": "text", "text": block}]
    elif content is None or (isinstance(content, str) and not content):
        new_content = block
    else:
        new_content = f"{content}\n\n{block}"
    out[last_user] = {**msg, "content": new_content}
    return out
