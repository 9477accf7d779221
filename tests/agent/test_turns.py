"""The turn loop over real HTTP: streaming, tools, errors, cancellation."""

from __future__ import annotations

import asyncio
import json
import tempfile
from typing import Any, ClassVar

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent.tool_runner import MAX_PARALLEL_TOOLS
from hermeslite.context.messages import EXIT_CODE_KEY
from hermeslite.tools.base import ToolResult
from tests.builders import assert_valid
from tests.server import Reply


def roles(agent):
    return [m["role"] for m in agent.messages]


async def test_streams_a_text_reply_and_saves_it(make_agent, scripted_server):
    scripted_server.enqueue(Reply.text("Hello there, friend.", chunks=4))
    agent, rec = make_agent()
    finished = await agent.run_turn("hi")
    assert finished.ok
    assert rec.text() == "Hello there, friend."
    assert len(rec.of(ev.TextDelta)) >= 2
    assert roles(agent) == ["system", "user", "assistant"]
    assert make_agent.store.load_transcript(agent.session_id)[1:] == agent.messages[1:]
    assert rec.of(ev.PressureChanged) and rec.of(ev.TurnFinished)[-1].ok


async def test_parallel_tool_calls_run_and_feed_back(make_agent, scripted_server, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "echo from-shell"}), ("read_file", {"path": "notes.txt"})]),
        Reply.text("Both done."),
    )
    agent, rec = make_agent()
    assert (await agent.run_turn("do two things")).ok
    assert roles(agent) == ["system", "user", "assistant", "tool", "tool", "assistant"]
    started = [e.name for e in rec.of(ev.ToolStarted)]
    assert sorted(started) == ["read_file", "terminal"]
    shell, read = agent.messages[3]["content"], agent.messages[4]["content"]
    assert "from-shell" in shell and "[exit code: 0]" in shell
    assert "beta" in read
    second_request = scripted_server.requests[1]["messages"]
    assert [m["role"] for m in second_request][-2:] == ["tool", "tool"]
    assert_valid(agent.messages)


class _Probe:
    """A tool that records how many of its calls run at the same time."""

    name = "probe"
    description = "Waits briefly and echoes its number."
    writes = False
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }

    def __init__(self) -> None:
        self.running = self.peak = 0

    async def run(self, args, ctx):
        self.running += 1
        self.peak = max(self.peak, self.running)
        await asyncio.sleep(0.01)
        self.running -= 1
        return ToolResult(f"probe {args['n']}")


async def test_a_flood_of_tool_calls_runs_a_few_at_a_time_in_call_order(make_agent, scripted_server):
    probe = _Probe()
    scripted_server.enqueue(Reply.tool_calls([("probe", {"n": i}) for i in range(150)]), Reply.text("done"))
    agent, _ = make_agent()
    agent.deps.registry.register(probe)
    assert (await agent.run_turn("probe a lot")).ok
    assert 1 < probe.peak <= MAX_PARALLEL_TOOLS
    results = [m["content"] for m in agent.messages if m["role"] == "tool"]
    assert results == [f"probe {i}" for i in range(150)]
    assert_valid(agent.messages)


async def test_rate_limit_is_retried_then_succeeds(make_agent, scripted_server):
    scripted_server.enqueue(Reply.error(429, "Rate limit reached", headers={"Retry-After": "0"}), Reply.text("fine"))
    agent, rec = make_agent()
    assert (await agent.run_turn("hi")).ok
    assert rec.text() == "fine" and not rec.of(ev.ErrorEvent)


async def test_disconnect_mid_stream_is_one_clear_error_and_a_valid_transcript(make_agent, scripted_server):
    scripted_server.enqueue(Reply.disconnect(after_chunks=3))
    agent, rec = make_agent()
    finished = await agent.run_turn("hi")
    assert not finished.ok
    errors = rec.of(ev.ErrorEvent)
    assert len(errors) == 1 and "\n" not in errors[0].text and "Traceback" not in errors[0].text
    assert errors[0].text.startswith("The connection to openai/test-model dropped before the reply was complete: ")
    assert_valid(agent.messages)
    scripted_server.enqueue(Reply.text("back again"))
    assert (await agent.run_turn("still there?")).ok
    assert_valid(agent.messages)


async def test_cancel_mid_reply_leaves_a_valid_transcript(make_agent, scripted_server):
    scripted_server.enqueue(Reply.delay(5, Reply.text("too late")))
    agent, _rec = make_agent()
    task = asyncio.create_task(agent.run_turn("slow please"))
    await asyncio.sleep(0.5)
    task.cancel()
    finished = await task
    assert finished.cancelled
    assert_valid(agent.messages)
    assert agent.messages[-1]["role"] == "assistant"


async def test_cancel_during_a_tool_kills_it_and_answers_the_call(make_agent, scripted_server, tmp_path):
    marker = tmp_path / "finished"
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": f"sleep 20; touch {marker}"})]))
    agent, rec = make_agent()
    task = asyncio.create_task(agent.run_turn("run the slow thing"))
    for _ in range(100):
        await asyncio.sleep(0.05)
        if rec.of(ev.ToolStarted):
            break
    await asyncio.sleep(0.3)
    task.cancel()
    assert (await task).cancelled
    assert_valid(agent.messages)
    assert "cancelled" in agent.messages[-2]["content"] or "cancelled" in agent.messages[-1]["content"]
    assert not marker.exists()


@pytest.fixture
def fake_home(tmp_path_factory, monkeypatch):
    """A home outside the agent's cwd, and a temp dir that does not contain it (the real one is writable)."""
    home = tmp_path_factory.mktemp("home")
    (home / "keep.txt").write_text("precious")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("tmp")))
    return home


async def test_dangerous_command_is_denied_headless(make_agent, scripted_server, fake_home):
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "rm -rf ~"})]), Reply.text("ok, I won't"))
    agent, _rec = make_agent()
    assert (await agent.run_turn("clean up my home")).ok
    result = agent.messages[3]
    assert result["role"] == "tool" and "no one can approve this command in headless mode" in result["content"]
    assert (fake_home / "keep.txt").exists()


async def test_interactive_approval_asks_the_front_end(make_agent, scripted_server, fake_home):
    command = f"touch {fake_home}/flag"
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": command})]), Reply.text("done"))
    agent, _rec = make_agent(interactive=True)
    asked = []

    def answer(event):
        if isinstance(event, ev.ApprovalRequested):
            asked.append(event.request)
            event.answer.set_result(False)

    agent.subscribe(answer)
    assert (await agent.run_turn("touch it")).ok
    assert asked and asked[0].command == command and str(fake_home) in asked[0].reason
    assert "the user denied this command" in agent.messages[3]["content"]
    assert not (fake_home / "flag").exists()


async def test_max_iterations_stops_a_runaway_loop(make_agent, scripted_server):
    scripted_server.enqueue(*[Reply.tool_calls([("terminal", {"command": f"echo {n}"})]) for n in range(5)])
    agent, rec = make_agent(agent={"max_iterations": 3})
    finished = await agent.run_turn("loop forever")
    assert not finished.ok and "max_iterations" in rec.of(ev.ErrorEvent)[-1].text
    assert_valid(agent.messages)


async def test_auth_error_is_one_sentence(make_agent, scripted_server):
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided"))
    agent, rec = make_agent()
    assert not (await agent.run_turn("hi")).ok
    assert [e.text for e in rec.of(ev.ErrorEvent)] == [
        "The provider rejected the API key for openai/test-model (401). Set OPENAI_API_KEY or model.api_key_env."
    ]
    assert_valid(agent.messages)


async def test_private_keys_never_reach_the_provider(make_agent, scripted_server):
    agent, _rec = make_agent()
    await agent.run_turn("hi")
    await agent.compress_now()
    await agent.run_turn("again")
    for body in scripted_server.requests:
        for m in body["messages"]:
            assert not any(k.startswith("_") for k in m), m
    json.dumps(scripted_server.requests)


async def test_a_command_s_exit_code_reaches_the_message_and_the_event_as_data(make_agent, scripted_server):
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "echo half; exit 4"})]), Reply.text("It failed.")
    )
    agent, rec = make_agent()
    assert (await agent.run_turn("run it")).ok
    tool = next(m for m in agent.messages if m["role"] == "tool")
    assert tool["content"].endswith("[exit code: 4]"), "the model still reads the code"
    assert tool[EXIT_CODE_KEY] == 4
    assert [(e.name, e.exit_code) for e in rec.of(ev.ToolFinished)] == [("terminal", 4)]
    sent = [m for m in scripted_server.requests[1]["messages"] if m["role"] == "tool"]
    assert sent and all(EXIT_CODE_KEY not in m for m in sent), "private keys never reach the provider"
    assert make_agent.store.load_transcript(agent.session_id)[1:] == agent.messages[1:], "saved with the key"
