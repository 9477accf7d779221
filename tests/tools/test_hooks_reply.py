"""Reading a hook's exit code and output the way Claude Code does."""

from __future__ import annotations

import json

import pytest

from hermeslite.tools.hooks.process import HookRun
from hermeslite.tools.hooks.reply import CONTEXT_LIMIT, HookReply, read_reply


def reply(code: int | None, stdout: str = "", stderr: str = "", *, plain: bool = False) -> HookReply:
    return read_reply(HookRun(code, stdout, stderr, None if code is not None else "timed out"), plain_context=plain)


def test_exit_0_with_nothing_says_nothing() -> None:
    assert reply(0) == HookReply()


def test_exit_2_blocks_with_stderr_or_the_json_reason() -> None:
    assert reply(2, stderr="  not here\n").block == "not here"
    assert reply(2).block == "no reason given"
    assert reply(2, json.dumps({"decision": "block", "reason": "from json"}), "from stderr").block == "from json"


def test_other_exit_codes_fail_without_blocking_unless_stdout_is_json() -> None:
    failed = reply(1, "plain text", "first line\nsecond line", plain=True)
    assert failed == HookReply(problems=("exited with 1: first line",))
    decided = reply(1, json.dumps({"decision": "block", "reason": "json decides"}))
    assert decided.block == "json decides" and decided.problems == ()


def test_permission_decisions() -> None:
    def decide(**fields: str) -> HookReply:
        return reply(0, json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}))

    assert decide(permissionDecision="deny", permissionDecisionReason="why").block == "why"
    assert decide(permissionDecision="ask").ask == ""
    assert decide(permissionDecision="allow") == HookReply()
    assert decide(permissionDecision="defer").problems == (
        "permissionDecision 'defer' is not supported (allow, deny or ask); ignored",
    )


def test_plain_stdout_is_context_only_where_the_event_takes_it() -> None:
    assert reply(0, "branch: main\n", plain=True).context == "branch: main"
    assert reply(0, "branch: main\n", plain=False).context is None


@pytest.mark.parametrize(
    ("stdout", "problem"),
    [
        ('{"decision": ', "printed invalid JSON"),
        ('{"decision": "maybe"}', "decision must be \"block\", got 'maybe'; ignored"),
        ('{"continue": "no"}', 'continue must be true or false, got "no"; ignored'),
        ('{"hookSpecificOutput": []}', "hookSpecificOutput must be an object, got []; ignored"),
        (
            '{"hookSpecificOutput": {"updatedInput": {"command": "ls"}}}',
            "updatedInput is not supported; the call runs as the model sent it",
        ),
    ],
)
def test_garbage_is_a_problem_not_a_decision(stdout: str, problem: str) -> None:
    got = reply(0, stdout, plain=True)
    assert got.block is None and got.context is None
    assert len(got.problems) == 1 and got.problems[0].startswith(problem)


def test_continue_false_halts_with_its_reason() -> None:
    assert reply(0, json.dumps({"continue": False, "stopReason": "red build"})).halt == "red build"
    assert reply(0, json.dumps({"continue": False})).halt == ""


def test_a_run_that_did_not_finish_is_only_its_failure() -> None:
    assert reply(None) == HookReply(problems=("timed out",))


def test_context_is_capped_and_says_so() -> None:
    got = reply(0, "x" * (CONTEXT_LIMIT + 500), plain=True)
    assert got.context is not None and got.context.startswith("x" * CONTEXT_LIMIT)
    assert got.context.endswith("[... 500 more characters from the hook were cut]")
