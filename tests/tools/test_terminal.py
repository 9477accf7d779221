"""The terminal tool: exit codes, capped output, cwd, timeouts and cancellation that leave no process behind."""

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from hermeslite.context.exit_codes import exit_code_of
from hermeslite.tools.terminal import TerminalTool
from tests.tools.helpers import alive, gone_within

tool = TerminalTool()


async def wait_for_file(path: Path, seconds: float = 5.0) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def run(ctx, command, **extra):
    return await tool.run({"command": command, **extra}, ctx)


async def test_success_reports_exit_code_zero(ctx):
    result = await run(ctx, "echo hello")
    assert result.content == "hello\n[exit code: 0]" and not result.is_error and result.exit_code == 0


async def test_failure_reports_the_exit_code_and_merges_stderr(ctx):
    result = await run(ctx, "echo out; echo err >&2; exit 3")
    assert result.content == "out\nerr\n[exit code: 3]" and result.is_error
    assert result.exit_code == 3, "the exit code travels as data, for the compressor and the TUI"
    assert exit_code_of({"role": "tool", "content": result.content}) == 3, "a session saved without it reads it back"


async def test_death_by_signal_reads_as_128_plus_n(ctx):
    result = await run(ctx, "kill -9 $$")
    assert result.content.endswith("[exit code: 137]") and result.is_error


async def test_no_output_is_just_the_exit_line(ctx):
    assert (await run(ctx, "true")).content == "[exit code: 0]"


async def test_runs_in_the_context_cwd_not_the_process_cwd(ctx):
    result = await run(ctx, "pwd")
    assert result.content.splitlines()[0] == str(ctx.cwd)
    assert Path.cwd() != ctx.cwd


async def test_stdin_is_empty(ctx):
    result = await run(ctx, "cat; echo done")
    assert result.content == "done\n[exit code: 0]"


async def test_long_output_keeps_head_and_tail(ctx):
    result = await run(ctx, "seq 1 50000")
    assert result.content.startswith("1\n2\n3\n")
    assert "chars omitted]" in result.content
    assert result.content.endswith("49999\n50000\n[exit code: 0]")
    assert len(result.content) < 1100


async def test_invalid_utf8_does_not_break_the_output(ctx):
    result = await run(ctx, r"printf 'caf\xc3'; printf '\xa9 ok \xff\n'")
    assert result.content.startswith("café ok \ufffd")


async def test_timeout_kills_the_whole_process_group(ctx):
    started = time.monotonic()
    result = await run(ctx, "echo begun; sleep 30 & echo $! > bg.pid; sleep 30", timeout=0.3)
    assert time.monotonic() - started < 3
    assert result.is_error
    assert result.content == "begun\n[timed out after 0.3 s; process group killed]\n[exit code: 124]"
    assert result.exit_code == 124
    assert gone_within(int((ctx.cwd / "bg.pid").read_text()))


async def test_timeout_escalates_to_sigkill(ctx, monkeypatch):
    monkeypatch.setattr("hermeslite.tools.terminal.KILL_GRACE", 0.3)
    result = await run(ctx, "trap '' TERM; sleep 30 & echo $! > bg.pid; while :; do sleep 0.05; done", timeout=0.3)
    assert result.content.endswith("[exit code: 124]")
    assert gone_within(int((ctx.cwd / "bg.pid").read_text()))


async def test_cancellation_kills_the_group_and_propagates(ctx):
    task = asyncio.create_task(run(ctx, "echo $$ > sh.pid; sleep 30 & echo $! > bg.pid; sleep 30"))
    shell = await wait_for_file(ctx.cwd / "sh.pid")
    background = await wait_for_file(ctx.cwd / "bg.pid")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone_within(shell) and gone_within(background)


async def test_background_child_holding_the_output_does_not_hang_the_call(ctx):
    started = time.monotonic()
    result = await run(ctx, "sleep 30 & echo $! > bg.pid; echo started")
    assert time.monotonic() - started < 3
    assert result.content.startswith("started\n[background processes") and result.content.endswith("[exit code: 0]")
    assert gone_within(int((ctx.cwd / "bg.pid").read_text()))


async def test_background_child_with_redirected_output_keeps_running(ctx):
    result = await run(ctx, "sleep 30 > /dev/null 2>&1 & echo $! > bg.pid")
    pid = int((ctx.cwd / "bg.pid").read_text())
    try:
        assert result.content == "[exit code: 0]"
        assert alive(pid)
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_dangerous_command_is_refused_headless(ctx):
    result = await run(ctx, "touch ran; true || reboot")
    assert result.is_error and "no one can approve this command in headless mode" in result.content
    assert not (ctx.cwd / "ran").exists()


async def test_dangerous_command_is_refused_by_deny_policy(ctx):
    ctx.approval_policy = "deny"
    result = await run(ctx, "touch ran; true || reboot")
    assert result.is_error and "policy is deny" in result.content
    assert not (ctx.cwd / "ran").exists()


async def test_dangerous_command_runs_under_allow_policy(ctx):
    ctx.approval_policy = "allow"
    result = await run(ctx, "touch ran; true || reboot")
    assert result.content == "[exit code: 0]" and (ctx.cwd / "ran").exists()


@pytest.mark.parametrize("answer", [True, False])
async def test_ask_policy_calls_the_approver(ctx, answer):
    requests = []

    async def approver(request):
        requests.append(request)
        return answer

    ctx.approve = approver
    result = await run(ctx, "touch ran; true || reboot")
    assert [r.command for r in requests] == ["touch ran; true || reboot"]
    assert "reboot" in requests[0].reason
    assert (ctx.cwd / "ran").exists() is answer
    assert result.is_error is not answer
    if not answer:
        assert "the user denied this command" in result.content


async def test_ordinary_commands_do_not_ask(ctx):
    async def approver(request):
        raise AssertionError("should not be asked")

    ctx.approve = approver
    assert (await run(ctx, "echo fine")).content == "fine\n[exit code: 0]"


@pytest.mark.parametrize(
    "args, message",
    [
        ({"command": "  "}, "empty command"),
        ({"command": "echo", "timeout": -1}, "timeout must be a positive"),
    ],
)
async def test_bad_arguments(ctx, args, message):
    result = await tool.run(args, ctx)
    assert result.is_error and message in result.content


async def test_missing_cwd_is_an_error(ctx):
    ctx.cwd = ctx.cwd / "absent"
    result = await run(ctx, "echo hi")
    assert result.is_error and "does not exist" in result.content


async def test_a_model_supplied_timeout_is_capped_by_the_configured_one(ctx):
    ctx.terminal_timeout = 0.5
    started = time.monotonic()
    result = await run(ctx, "sleep 30", timeout=600)
    assert time.monotonic() - started < 5
    assert "[timed out after 0.5 s; process group killed]" in result.content
    assert "600 s was asked; tools.terminal_timeout caps commands at 0.5 s" in result.content


# What a tool process must not see: provider keys, names that say they hold a secret, and the variable
# `model.api_key_env` names (CORP_LLM_CREDENTIAL here).
HIDDEN_FROM_TOOLS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "REPLICATE_API_TOKEN",
    "MY_CLIENT_SECRET",
    "CORP_LLM_CREDENTIAL",
)


async def test_provider_keys_do_not_reach_tool_processes(ctx, monkeypatch):
    for name in (*HIDDEN_FROM_TOOLS, "GROQ_API_KEY"):
        monkeypatch.setenv(name, f"value-of-{name}")
    monkeypatch.setenv("ORDINARY_SETTING", "kept")
    ctx.hidden_env = ("CORP_LLM_CREDENTIAL",)  # model.api_key_env
    ctx.pass_env = ("GROQ_API_KEY",)  # tools.pass_env
    # The command says which variables it sees: printed, their values would be masked by redaction.
    names = " ".join((*HIDDEN_FROM_TOOLS, "GROQ_API_KEY", "ORDINARY_SETTING"))
    result = await run(ctx, f'for n in {names}; do [ "${{!n}}" = "value-of-$n" ] && echo "set:$n"; done; true')
    assert "set:ORDINARY_SETTING" not in result.content  # its value is "kept"
    assert "set:GROQ_API_KEY" in result.content
    for name in HIDDEN_FROM_TOOLS:
        assert f"set:{name}" not in result.content, name
    assert (await run(ctx, "echo $ORDINARY_SETTING")).content.startswith("kept\n")


async def test_tool_processes_get_no_core_dumps_and_a_process_cap(ctx):
    result = await run(ctx, "ulimit -c; ulimit -u")
    core, nproc = result.content.splitlines()[:2]
    assert core == "0"
    assert nproc != "unlimited" and int(nproc) < int(Path("/proc/loadavg").read_text().split()[3].split("/")[1]) + 2000


async def test_finished_commands_leave_no_tracked_group_and_servers_stay_tracked(ctx):
    from hermeslite.tools import process_groups

    before = process_groups.live()
    await run(ctx, "echo quick")
    assert process_groups.live() == before
    await run(ctx, "sleep 30 > /dev/null 2>&1 & echo $! > bg.pid")
    pid = int((ctx.cwd / "bg.pid").read_text())
    try:
        assert process_groups.live() - before, "a server left running is remembered so exit can kill it"
    finally:
        process_groups.kill_all()
    assert gone_within(pid)


async def test_groups_that_died_on_their_own_are_forgotten(ctx):
    from hermeslite.tools import process_groups

    await run(ctx, "sleep 0.3 > /dev/null 2>&1 & echo $! > bg.pid")
    pid = int((ctx.cwd / "bg.pid").read_text())
    assert gone_within(pid)
    await run(ctx, "true")  # every command first forgets dead groups
    assert not process_groups.live()
