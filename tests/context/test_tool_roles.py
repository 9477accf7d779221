"""The engine knows what tools do only through the table it is handed."""

from __future__ import annotations

from hermeslite.context.anchors import extract_anchors
from hermeslite.context.prune import prune
from hermeslite.context.tool_roles import DEFAULT_TOOL_ROLES, ToolRole, ToolRoles
from hermeslite.context.tool_summaries import summarize_tool_result
from hermeslite.tools.recall import RecallTool
from hermeslite.tools.registry import default_registry
from tests.builders import Transcript

RENAMED = ToolRoles({"bash": ToolRole.RUNS_COMMANDS, "cat": ToolRole.READS_FILES, "edit": ToolRole.PATCHES_FILES})


def test_the_default_table_is_what_hermeslite_s_registry_declares():
    registry = default_registry(extra_tools=[RecallTool(None, lambda: None)])  # type: ignore[arg-type]
    assert registry.tool_roles() == DEFAULT_TOOL_ROLES


def _session():
    t = Transcript().user("fix it")
    t.tool("cat", {"path": "app.py"}, "def main():\n    raise ValueError('bad')\n" * 20)
    t.tool("edit", {"path": "app.py"}, "Replaced 1 occurrence")
    t.tool("bash", {"command": "pytest -q"}, "FAILED test_app.py - AssertionError\n" * 10 + "[exit code: 1]")
    return t.assistant("still failing").build()


def test_anchors_follow_the_roles_not_the_names():
    anchors = extract_anchors(_session(), RENAMED)
    assert anchors.commands == [["pytest -q", 1]]
    assert anchors.files == [["patched", "app.py"]]
    assert anchors.failures["pytest -q"][0].startswith("FAILED test_app.py")
    assert not any("ValueError" in e for e in anchors.errors), "file contents are not failures"
    unknown = extract_anchors(_session())
    assert unknown.commands == [] and unknown.files == [], "tools the table does not name are not guessed at"


def test_pruned_lines_are_worded_by_role():
    assert (
        summarize_tool_result("bash", {"command": "ls"}, "a\nb\n", exit_code=0, roles=RENAMED)
        == "[bash] ran `ls` -> exit 0, 2 lines output"
    )
    assert summarize_tool_result("bash", {"command": "ls"}, "a\nb\n") == "[bash] command=ls (4 chars result)"
    pruned = prune(_session(), protect_tokens=0, minimum_tokens=0, roles=RENAMED)
    assert pruned.messages[3]["content"].startswith("[cat] read app.py (")
