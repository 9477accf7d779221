"""PreToolUse and PostToolUse hooks around real tool calls, through the agent loop and litellm.

Every check looks at what happened: the file a blocked command would have made,
the tool result the model's next request carries, what the hook was sent.
"""

from __future__ import annotations

import asyncio
import os
import tempfile

import pytest

from hermeslite.agent import events as ev
from hermeslite.store.hook_transcript import transcript_file
from tests.envelope import sent_tool_results
from tests.hook_scripts import inputs, live_in_group, on, recording, replying, script
from tests.server import Reply, ScriptedServer


def tool_results(server: ScriptedServer) -> list[str]:
    """The tool results the model's last request carried, in order (out of their envelopes)."""
    return sent_tool_results(server)


def warnings(rec) -> list[str]:
    return [n.text for n in rec.of(ev.Notice) if n.severity == "warning"]


def touch_then_reply(server: ScriptedServer, *names: str) -> None:
    server.enqueue(Reply.tool_calls([("terminal", {"command": f"touch {name}"}) for name in names]), Reply.text("done"))


@pytest.mark.parametrize("hooked", [False, True])
async def test_an_exit_2_hook_stops_a_real_command_and_the_model_reads_why(
    make_agent, scripted_server, tmp_path, hooked
):
    block = script(tmp_path / "hooks", "block.sh", 'cat > /dev/null; echo "no new files in this repo" >&2; exit 2')
    agent, _ = make_agent(hooks=on("PreToolUse", block, matcher="terminal") if hooked else None)
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert (tmp_path / "made.txt").exists() is not hooked
    if hooked:
        assert tool_results(scripted_server) == ["error: blocked by a PreToolUse hook: no new files in this repo"]


@pytest.mark.parametrize(
    "reply",
    [
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "touch is off limits",
            }
        },
        {"decision": "block", "reason": "touch is off limits"},
    ],
    ids=["permissionDecision", "decision"],
)
async def test_a_json_decision_blocks_as_exit_2_does(make_agent, scripted_server, tmp_path, reply):
    deny = replying(tmp_path / "hooks", "deny.sh", reply)
    agent, rec = make_agent(hooks=on("PreToolUse", deny))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert not (tmp_path / "made.txt").exists()
    assert tool_results(scripted_server) == ["error: blocked by a PreToolUse hook: touch is off limits"]
    [finished] = rec.of(ev.ToolFinished)
    assert finished.is_error and finished.refused and "touch is off limits" in finished.content


async def test_a_glob_matcher_picks_its_tools_only(make_agent, scripted_server, tmp_path):
    block = script(tmp_path / "hooks", "block.sh", 'echo "files are read-only today" >&2; exit 2')
    agent, _ = make_agent(hooks=on("PreToolUse", block, matcher="*_file"))
    scripted_server.enqueue(
        Reply.tool_calls(
            [("write_file", {"path": "written.txt", "content": "x"}), ("terminal", {"command": "touch ran.txt"})]
        ),
        Reply.text("done"),
    )
    assert (await agent.run_turn("write and touch")).ok
    assert not (tmp_path / "written.txt").exists()
    assert (tmp_path / "ran.txt").exists()
    written, ran = tool_results(scripted_server)
    assert written == "error: blocked by a PreToolUse hook: files are read-only today"
    assert ran == "[exit code: 0]"


async def test_a_matcher_written_for_claude_code_picks_the_same_tool(make_agent, scripted_server, tmp_path):
    block = script(tmp_path / "hooks", "block.sh", 'echo "no shell" >&2; exit 2')
    agent, _ = make_agent(hooks=on("PreToolUse", block, matcher="Bash"))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert not (tmp_path / "made.txt").exists()


async def test_pre_tool_use_is_sent_the_call_as_claude_code_sends_it(make_agent, scripted_server, tmp_path):
    seen = recording(tmp_path / "hooks", "seen")
    agent, _ = make_agent(hooks=on("PreToolUse", seen))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    [sent] = inputs(tmp_path / "hooks", "seen")
    assert sent == {
        "session_id": agent.session_id,
        "transcript_path": str(transcript_file(agent.session_id)),
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "terminal",
        "tool_input": {"command": "touch made.txt"},
        "tool_use_id": "call_0",
    }
    assert (tmp_path / "made.txt").exists()


async def test_post_tool_use_sees_the_result_and_adds_context_the_model_reads(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    seen = recording(
        folder,
        "seen",
        then='echo \'{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint: 2 warnings"}}\'',
    )
    agent, _ = make_agent(hooks=on("PostToolUse", seen))
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "echo hello-from-the-tool"})]), Reply.text("ok"))
    assert (await agent.run_turn("say hello")).ok
    [sent] = inputs(folder, "seen")
    assert sent["hook_event_name"] == "PostToolUse" and sent["tool_input"] == {"command": "echo hello-from-the-tool"}
    assert sent["tool_response"]["exit_code"] == 0 and sent["tool_response"]["is_error"] is False
    assert "hello-from-the-tool" in sent["tool_response"]["output"]
    [result] = tool_results(scripted_server)
    assert result.startswith("hello-from-the-tool\n")
    assert result.endswith("\n\n[from a PostToolUse hook]\nlint: 2 warnings")
    # The hook's note is the user's configuration speaking: it follows the tool output's envelope.
    [sent] = [m["content"] for m in scripted_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert sent.endswith("\n</tool_output>\n\n[from a PostToolUse hook]\nlint: 2 warnings")


async def test_post_tool_use_exit_2_feeds_its_stderr_back(make_agent, scripted_server, tmp_path):
    complain = script(tmp_path / "hooks", "complain.sh", 'echo "that file is generated; edit the template" >&2; exit 2')
    agent, _ = make_agent(hooks=on("PostToolUse", complain))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert (tmp_path / "made.txt").exists(), "the tool had already run"
    [result] = tool_results(scripted_server)
    assert result.endswith("[from a PostToolUse hook]\nthat file is generated; edit the template")


async def test_the_users_own_command_runs_without_hooks(make_agent, tmp_path):
    block = script(tmp_path / "hooks", "block.sh", "exit 2")
    agent, _ = make_agent(hooks=on("PreToolUse", block))
    result = await agent.run_user_command("touch mine.txt")
    assert result is not None and not result.is_error
    assert (tmp_path / "mine.txt").exists()


async def test_continue_false_ends_the_turn_after_the_calls(make_agent, scripted_server, tmp_path):
    halt = replying(tmp_path / "hooks", "halt.sh", {"continue": False, "stopReason": "build is red"})
    agent, rec = make_agent(hooks=on("PostToolUse", halt))
    touch_then_reply(scripted_server, "made.txt")
    finished = await agent.run_turn("make a file")
    assert not finished.ok and finished.reason == "stopped by a hook: build is red"
    assert len(scripted_server.requests) == 1, "the model was not asked again"
    assert "A hook stopped the turn: build is red" in warnings(rec)


async def test_ask_opens_the_approval_question_and_a_no_keeps_the_command_from_running(
    make_agent, scripted_server, tmp_path
):
    ask = replying(
        tmp_path / "hooks",
        "ask.sh",
        {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "it touches the repo"}},
    )
    agent, _ = make_agent(hooks=on("PreToolUse", ask), interactive=True)
    asked = []

    def answer(event):
        if isinstance(event, ev.ApprovalRequested):
            asked.append(event.request)
            event.answer.set_result(len(asked) == 2)  # no, then yes

    agent.subscribe(answer)
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "touch first.txt"})]),
        Reply.tool_calls([("terminal", {"command": "touch second.txt"})]),
        Reply.text("done"),
    )
    assert (await agent.run_turn("make two files")).ok
    assert [r.command for r in asked] == ["touch first.txt", "touch second.txt"]
    assert asked[0].reason == "a PreToolUse hook asks first: it touches the repo"
    assert not (tmp_path / "first.txt").exists() and (tmp_path / "second.txt").exists()
    first, second = tool_results(scripted_server)
    assert first.startswith("error: the user denied this call (a PreToolUse hook asks first: it touches the repo)")
    assert second == "[exit code: 0]"


async def test_ask_is_a_refusal_where_no_one_can_answer(make_agent, scripted_server, tmp_path):
    ask = replying(tmp_path / "hooks", "ask.sh", {"hookSpecificOutput": {"permissionDecision": "ask"}})
    agent, _ = make_agent(hooks=on("PreToolUse", ask))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert not (tmp_path / "made.txt").exists()
    assert tool_results(scripted_server) == [
        "error: denied (a PreToolUse hook asks first): no one can approve it in headless mode"
    ]


async def test_allow_does_not_open_the_boundary(make_agent, scripted_server, tmp_path, tmp_path_factory, monkeypatch):
    """A hook's allow is no objection, nothing more: a write outside the project still needs approval."""
    allow = replying(tmp_path / "hooks", "allow.sh", {"hookSpecificOutput": {"permissionDecision": "allow"}})
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("tmp")))  # the temp dir is writable
    outside = tmp_path_factory.mktemp("outside")
    agent, _ = make_agent(hooks=on("PreToolUse", allow))
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": str(outside / "x.txt"), "content": "x"})]), Reply.text("ok")
    )
    assert (await agent.run_turn("write outside")).ok
    assert not (outside / "x.txt").exists()
    [result] = tool_results(scripted_server)
    assert "no one can approve" in result


async def test_hooks_get_the_tool_environment_without_provider_keys(make_agent, scripted_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-hooks")
    monkeypatch.setenv("HOOK_TEST_VISIBLE", "yes")
    folder = tmp_path / "hooks"
    dump = script(folder, "env.sh", f'cat > /dev/null; env > "{folder}/env.txt"')
    agent, _ = make_agent(hooks=on("PreToolUse", dump))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    env = dict(line.split("=", 1) for line in (folder / "env.txt").read_text().splitlines() if "=" in line)
    assert "OPENAI_API_KEY" not in env and env["HOOK_TEST_VISIBLE"] == "yes"
    assert env["HERMESLITE_OWNER"] == str(os.getpid())
    assert env["CLAUDE_PROJECT_DIR"] == env["HERMESLITE_PROJECT_DIR"] == str(tmp_path)
    assert env["HERMESLITE_SESSION_ID"] == agent.session_id


async def test_no_hooks_no_processes(make_agent, scripted_server, tmp_path, monkeypatch):
    """With no hook configured, the hook runner is never reached."""
    import hermeslite.agent.hooks as hooks_module

    async def never(*args, **kwargs):
        raise AssertionError("a hook process was started")

    monkeypatch.setattr(hooks_module, "run_hook", never)
    agent, _ = make_agent()
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert (tmp_path / "made.txt").exists()


@pytest.mark.parametrize(
    ("body", "timeout", "line"),
    [
        ('echo "lint config missing" >&2; exit 1', None, "exited with 1: lint config missing"),
        (
            'echo $$ > "$(dirname "$0")/pgid.new" && mv "$(dirname "$0")/pgid.new" "$(dirname "$0")/pgid"; sleep 300 & sleep 300',
            3,
            "timed out after 3 s; its process group was killed",
        ),
        ("echo '{\"decision\": '", None, "printed invalid JSON"),
        ("yes", None, "printed more than 64 KiB on stdout; it was stopped"),
    ],
    ids=["failing", "hanging", "garbage", "flooding"],
)
async def test_a_broken_hook_is_one_line_and_the_call_goes_on(
    make_agent, scripted_server, tmp_path, body, timeout, line
):
    folder = tmp_path / "hooks"
    broken = script(folder, "broken.sh", body)
    agent, rec = make_agent(hooks=on("PreToolUse", broken, timeout=timeout))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert (tmp_path / "made.txt").exists()
    [said] = [text for text in warnings(rec) if "PreToolUse hook" in text]
    assert said.startswith(f"PreToolUse hook `{broken}`: {line}") and said.endswith("; the terminal call goes on")
    if timeout:
        assert live_in_group(int((folder / "pgid").read_text())) == []


async def test_exit_2_with_garbage_on_stdout_still_blocks_and_says_so(make_agent, scripted_server, tmp_path):
    broken = script(tmp_path / "hooks", "broken.sh", 'echo "{oops"; echo "blocked anyway" >&2; exit 2')
    agent, rec = make_agent(hooks=on("PreToolUse", broken))
    touch_then_reply(scripted_server, "made.txt")
    assert (await agent.run_turn("make a file")).ok
    assert not (tmp_path / "made.txt").exists()
    assert tool_results(scripted_server) == ["error: blocked by a PreToolUse hook: blocked anyway"]
    [said] = warnings(rec)
    assert "printed invalid JSON" in said and "goes on" not in said


async def test_cancelling_the_turn_kills_a_running_hook(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    slow = script(
        folder,
        "slow.sh",
        'echo $$ > "$(dirname "$0")/pgid.new" && mv "$(dirname "$0")/pgid.new" "$(dirname "$0")/pgid"; sleep 300',
    )
    agent, _ = make_agent(hooks=on("PreToolUse", slow))
    touch_then_reply(scripted_server, "made.txt")
    turn = asyncio.create_task(agent.run_turn("make a file"))
    while not (folder / "pgid").exists():
        await asyncio.sleep(0.05)
    turn.cancel()
    finished = await turn
    assert finished.cancelled
    assert live_in_group(int((folder / "pgid").read_text())) == []
    assert not (tmp_path / "made.txt").exists()
