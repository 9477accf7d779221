"""The request prefix stays byte-stable, so a provider's prompt cache keeps hitting.

The system prompt changes only at a compaction: not per turn, not when memory
is written mid-session, and not when a headless `--continue` starts a new
process in the same directory.
"""

from __future__ import annotations

from hermeslite.agent.factory import build_agent
from tests.server import Reply


def system_of(body: dict) -> dict:
    return body["messages"][0]


async def test_the_system_prompt_is_identical_on_every_turn_until_a_compaction(make_agent, scripted_server):
    agent, _ = make_agent()
    await agent.run_turn("first")
    agent.deps.memory.add("memory", "The build needs Python 3.12.")
    scripted_server.enqueue(
        Reply.tool_calls([("todo", {"todos": [{"id": "1", "content": "ship it", "status": "pending"}]})]),
        Reply.text("noted"),
    )
    await agent.run_turn("second")
    systems = [system_of(b) for b in scripted_server.requests]
    assert len(systems) == 3 and all(s == systems[0] for s in systems)
    assert "Python 3.12" not in systems[0]["content"]


async def test_a_resumed_session_keeps_its_system_prompt_byte_for_byte(make_agent, scripted_server):
    agent, _ = make_agent()
    await agent.run_turn("first")
    agent.deps.memory.add("memory", "The build needs Python 3.12.")
    again, _ = make_agent(session_id=agent.session_id)
    assert again.messages[0] == agent.messages[0]
    await again.run_turn("second")
    assert system_of(scripted_server.requests[-1]) == system_of(scripted_server.requests[0])


async def test_resumed_in_another_directory_the_prompt_names_the_new_one(make_agent, tmp_path):
    agent, _ = make_agent()
    await agent.run_turn("first")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = build_agent(
        agent.deps.settings,
        cwd=elsewhere,
        interactive=False,
        session_id=agent.session_id,
        llm=agent.deps.llm,
        store=make_agent.store,
    )
    assert str(elsewhere) in moved.messages[0]["content"]
    assert moved.messages[1:] == agent.messages[1:]
