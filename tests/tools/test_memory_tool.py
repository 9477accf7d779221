"""The memory tool: what the model sends becomes MemoryStore edits, and every failure a result."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.store.memory import MemoryStore
from hermeslite.tools.base import ToolContext
from hermeslite.tools.memory import MemoryTool


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "mem")


@pytest.fixture
def tool(store: MemoryStore) -> MemoryTool:
    return MemoryTool(store)


def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


def test_tool_shape(tool: MemoryTool):
    assert tool.name == "memory"
    assert set(tool.parameters["properties"]) == {"action", "target", "content", "old_text"}
    assert tool.parameters["properties"]["action"]["enum"] == ["add", "replace", "remove"]
    for word in ("preferences", "corrections", "environment", "task progress"):
        assert word in tool.description


async def test_tool_add_defaults_to_memory(tool: MemoryTool, store: MemoryStore, tmp_path: Path):
    result = await tool.run({"action": "add", "content": "Repo uses uv"}, ctx(tmp_path))
    assert not result.is_error and "MEMORY.md" in result.content
    assert store.entries("memory") == ["Repo uses uv"]


async def test_tool_replace_and_remove(tool: MemoryTool, store: MemoryStore, tmp_path: Path):
    await tool.run({"action": "add", "target": "user", "content": "Prefers tabs"}, ctx(tmp_path))
    r = await tool.run(
        {"action": "replace", "target": "user", "old_text": "tabs", "content": "Prefers spaces"}, ctx(tmp_path)
    )
    assert not r.is_error
    assert store.entries("user") == ["Prefers spaces"]
    r = await tool.run({"action": "remove", "target": "user", "old_text": "spaces"}, ctx(tmp_path))
    assert not r.is_error and store.entries("user") == []


@pytest.mark.parametrize(
    "args, message",
    [
        ({}, "unknown action None: use add, replace or remove."),
        ({"action": "delete", "old_text": "x"}, "unknown action 'delete': use add, replace or remove."),
        ({"action": "add"}, "content is empty."),
        (
            {"action": "add", "content": "x", "target": "elsewhere"},
            "unknown target 'elsewhere': use 'memory' or 'user'.",
        ),
        (
            {"action": "replace", "content": "x"},
            "old_text is empty: give a short unique substring of the entry to change.",
        ),
        ({"action": "remove"}, "old_text is empty: give a short unique substring of the entry to change."),
        ({"action": "remove", "old_text": "nothing like this"}, 'no entry in MEMORY.md contains "nothing like this".'),
    ],
)
async def test_tool_errors_are_results_and_change_nothing(
    tool: MemoryTool, store: MemoryStore, tmp_path: Path, args, message
):
    await tool.run({"action": "add", "content": "Uses pytest -q."}, ctx(tmp_path))
    result = await tool.run(args, ctx(tmp_path))
    assert result.is_error and result.content == f"error: {message}"
    assert (store.entries("memory"), store.entries("user")) == (["Uses pytest -q."], [])


async def test_tool_reports_os_errors_as_results(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = await MemoryTool(MemoryStore(blocker / "mem")).run({"action": "add", "content": "x"}, ctx(tmp_path))
    # names the folder it could not make, under the file in the way
    assert result.is_error and result.content == f"error: could not update memory ({blocker / 'mem'}): Not a directory"


async def test_a_memory_file_that_is_not_utf8_is_an_error_result_and_stays_as_it_was(tmp_path: Path):
    store = MemoryStore(tmp_path / "mem")
    store.folder.mkdir()
    path = store.folder / "MEMORY.md"
    path.write_bytes(b"Uses uv\n\xa7\ncaf\xe9\n")
    for args in (
        {"action": "add", "content": "x"},
        {"action": "replace", "old_text": "uv", "content": "Uses uv 0.5"},
        {"action": "remove", "old_text": "uv"},
    ):
        result = await MemoryTool(store).run(args, ctx(tmp_path))
        assert result.is_error
        assert result.content == (
            f"error: cannot read the memory file {path}: not UTF-8 text (byte 0xa7 at offset 8); "
            "it is left as it is: fix it or move it aside"
        )
    assert path.read_bytes() == b"Uses uv\n\xa7\ncaf\xe9\n"
