"""The mode is session state: every request sent in plan mode carries the plan line and leaves out the write
tools, through compactions and into a resumed agent, while the stored transcript never holds the line."""

from __future__ import annotations

import pytest

from hermeslite.agent.modes import PLAN_LINE, ModeError
from hermeslite.tools.landlock import abi_version
from tests.builders import FILLER
from tests.server import Reply
from tests.summary_requests import answer_summaries, is_summary_request

pytestmark = pytest.mark.skipif(abi_version() < 1, reason="plan mode needs Landlock")


def turn_requests(server):
    return [b for b in server.requests if not is_summary_request(b)]


def offered(request) -> set[str]:
    return {tool["function"]["name"] for tool in request.get("tools") or []}


async def test_plan_mode_outlives_a_compaction_and_a_resume(make_agent, scripted_server):
    answer_summaries(scripted_server)
    agent, _ = make_agent(compression={"memory_flush": False})
    agent.set_mode("plan")
    for n in range(4):
        scripted_server.enqueue(Reply.text(f"answer {n}"))
        await agent.run_turn(f"turn {n}: {FILLER}")
    result = await agent.compress_now()
    assert result.changed
    scripted_server.enqueue(Reply.text("after"))
    await agent.run_turn("and now?")

    sent = turn_requests(scripted_server)[-1]
    assert sent["messages"][0]["content"].endswith(PLAN_LINE)
    assert "write_file" not in offered(sent) and "terminal" in offered(sent)
    stored = make_agent.store.load_transcript(agent.session_id)
    assert PLAN_LINE not in stored[0]["content"]  # state, not transcript

    resumed, _ = make_agent(session_id=agent.session_id)
    assert resumed.mode == "plan"
    scripted_server.enqueue(Reply.text("resumed"))
    await resumed.run_turn("still planning?")
    assert turn_requests(scripted_server)[-1]["messages"][0]["content"].endswith(PLAN_LINE)

    scratch = resumed.deps.tool_ctx.scratch
    assert scratch is not None and scratch.is_dir()
    resumed.set_mode("default")
    assert not scratch.exists()  # the scratch dir goes with plan mode
    scripted_server.enqueue(Reply.text("go"))
    await resumed.run_turn("go ahead")
    last = turn_requests(scripted_server)[-1]
    assert last["messages"][0]["content"] == resumed.messages[0]["content"]  # the stored prompt, byte for byte
    assert {"write_file", "patch"} <= offered(last)


async def test_default_and_accept_edits_send_the_same_prompt_and_tools(make_agent, scripted_server):
    agent, _ = make_agent()
    scripted_server.enqueue(Reply.text("one"), Reply.text("two"))
    await agent.run_turn("first")
    agent.set_mode("accept-edits")
    await agent.run_turn("second")
    first, second = turn_requests(scripted_server)
    assert first["messages"][0] == second["messages"][0] and first["tools"] == second["tools"]


async def test_plan_mode_is_refused_without_the_sandbox_and_the_mode_stays(make_agent):
    agent, _ = make_agent(tools={"sandbox": "off"})
    with pytest.raises(ModeError, match="plan mode refused: it needs the kernel sandbox"):
        agent.set_mode("plan")
    assert agent.mode == "default" and agent.deps.tool_ctx.scratch is None
