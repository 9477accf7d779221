"""Every way a call is refused says so in `ToolResult.refused`, and a failure that only reads like one does not.

Scripts count refusals as permission denials (headless JSON); a command whose own
output begins "error: refused" failed, it was not refused.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from hermeslite.agent import events as ev
from hermeslite.paths import config_dir
from hermeslite.tools.approval import PLAN_REFUSAL
from hermeslite.tools.files import PatchTool, ReadFileTool, WriteFileTool
from hermeslite.tools.landlock import abi_version
from hermeslite.tools.terminal import TerminalTool
from hermeslite.tools.web.tool import WebFetchTool
from tests.server import Reply


async def test_a_command_the_deny_policy_stops_is_refused(ctx):
    result = await TerminalTool().run({"command": "rm -rf build"}, replace(ctx, approval_policy="deny"))
    assert result.is_error and result.refused
    assert result.content.startswith("error: refused")


async def test_a_failing_command_that_prints_a_refusal_is_not_one(ctx):
    result = await TerminalTool().run({"command": "echo 'error: refused to merge'; exit 1"}, ctx)
    assert result.content.startswith("error: refused to merge")
    assert result.is_error and result.exit_code == 1 and not result.refused


async def test_reading_outside_the_project_with_no_one_to_ask_is_refused(ctx, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("x")
    result = await ReadFileTool().run({"path": str(outside)}, ctx)
    assert result.refused and "no one can approve" in result.content


async def test_a_write_into_hermeslites_own_files_is_refused(ctx):
    result = await WriteFileTool().run({"path": str(config_dir() / "config.yaml"), "content": "x"}, ctx)
    assert result.refused and not (config_dir() / "config.yaml").exists()


async def test_an_edit_nobody_approves_is_refused_with_its_diff(ctx):
    (ctx.cwd / "a.txt").write_text("old\n")
    result = await PatchTool().run({"path": "a.txt", "old": "old", "new": "new"}, replace(ctx, edits="ask"))
    assert result.refused and result.diff is not None
    assert (ctx.cwd / "a.txt").read_text() == "old\n"


async def test_a_scheme_web_fetch_will_not_fetch_is_refused(ctx):
    result = await WebFetchTool().run({"url": "file:///etc/passwd"}, ctx)
    assert result.refused and result.is_error


def test_plan_modes_command_refusal_reads_as_an_error_line():
    # The terminal wraps the approval's refusal text as it is: it must read as the others do.
    assert PLAN_REFUSAL.format(reason="writes").startswith("error: refused")


@pytest.mark.skipif(abi_version() < 1, reason="plan mode needs Landlock")
async def test_a_tool_plan_mode_withholds_is_refused(make_agent, scripted_server, tmp_path):
    agent, rec = make_agent()
    agent.set_mode("plan")
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "a.txt", "content": "b"})]), Reply.text("planned")
    )
    assert (await agent.run_turn("write it")).ok
    [finished] = rec.of(ev.ToolFinished)
    assert finished.refused and "not available in plan mode" in finished.content
    assert not (tmp_path / "a.txt").exists()
