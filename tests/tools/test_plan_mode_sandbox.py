"""The terminal in plan mode and accept-edits, against the real kernel, as a scratch user outside the temp dir.

Plan mode holds whatever the approval policy says (`allow` included) and whatever the parser
thinks of a command; accept-edits only removes the questions about work inside the project.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from hermeslite.tools.landlock import abi_version
from hermeslite.tools.terminal import TerminalTool

pytestmark = pytest.mark.skipif(abi_version() < 1, reason="needs Landlock")


def planning(ctx, scratch):
    scratch.mkdir()
    return replace(ctx, mode="plan", scratch=scratch)


@pytest.mark.parametrize("policy", ["allow", "auto", "ask"])
async def test_plan_mode_confines_commands_whatever_the_policy(outside, policy):
    ctx = planning(outside.ctx(policy), outside.base / "scratch")
    (outside.proj / "keep.py").write_text("x = 1\n")
    command = (
        f"rm -rf {outside.home}/canary; sed -i s/1/2/ keep.py; mkdir {outside.tmp}/made; "
        "echo ok > $TMPDIR/note && cat $TMPDIR/note"
    )

    result = await TerminalTool().run({"command": command}, ctx)

    assert outside.untouched() and (outside.proj / "keep.py").read_text() == "x = 1\n"
    assert not (outside.tmp / "made").exists()
    assert "ok" in result.content  # the scratch dir is writable, and it is $TMPDIR
    assert (outside.base / "scratch" / "note").read_text() == "ok\n"
    assert "[plan mode: commands may write nothing but the scratch dir" in result.content


async def test_plan_mode_refuses_what_no_filesystem_sandbox_holds(outside):
    ctx = planning(outside.ctx("allow"), outside.base / "scratch")
    result = await TerminalTool().run({"command": "kill -9 -1"}, ctx)
    assert result.is_error and result.content.startswith("error: refused in plan mode (")
    assert "put it in the plan instead" in result.content


async def test_plan_mode_without_a_sandbox_runs_nothing(outside):
    ctx = replace(outside.ctx("auto"), mode="plan", scratch=outside.base, sandbox=None)
    result = await TerminalTool().run({"command": "touch x"}, ctx)
    assert result.is_error and "plan mode is on but the kernel sandbox is not available" in result.content
    assert not (outside.proj / "x").exists()


async def test_accept_edits_runs_destructive_work_inside_the_project_without_asking(outside):
    (outside.proj / "build").mkdir()
    (outside.proj / "build" / "out.o").write_text("obj")
    asked = replace(outside.ctx("ask"))
    refused = await TerminalTool().run({"command": "rm -rf build"}, asked)
    assert refused.is_error and "headless" in refused.content and (outside.proj / "build").exists()

    accepting = replace(outside.ctx("ask"), mode="accept-edits")
    done = await TerminalTool().run({"command": "rm -rf build"}, accepting)
    assert not done.is_error and not (outside.proj / "build").exists()
    escaping = await TerminalTool().run({"command": f"rm -rf {outside.home}/canary"}, accepting)
    assert escaping.is_error and outside.untouched()  # outside the project it still asks (headless: refused)
