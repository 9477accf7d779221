"""Nothing a tool printed is lost (issue 19, item 2), through the real loop, litellm and a scripted server.

A command prints a megabyte with one unique word in its middle. The model's request carries only the
capped head and tail and a line with the recall id of the whole; after the turn the model's `recall`
and the user's `/recall` find the word from the middle.
"""

from __future__ import annotations

import re

from hermeslite.agent.recall import recall_for_user
from tests.envelope import sent_tool_results, unwrapped
from tests.server import Reply

LIMIT = 30_000
# 1 MB of numbered lines with a unique word on line 6,000 of 12,000 and a key beside it.
MEGABYTE = (
    "python3 -c \"import sys; w = sys.stdout.write; [w(f'line {i:05d} of the build log ' + 'x' * 60 + '\\n') "
    "for i in range(6000)]; w('the middle says zanzibarquux and GITHUB_TOKEN=ghp_' + 'a1B2c3D4' * 5 + '\\n'); "
    "[w(f'line {i:05d} of the build log ' + 'y' * 60 + '\\n') for i in range(6000, 12000)]\""
)


async def test_a_megabyte_of_output_reaches_the_model_capped_and_recall_finds_its_middle(make_agent, scripted_server):
    agent, _ = make_agent(context_window=200_000, tools={"output_limit": LIMIT})
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": MEGABYTE})]), Reply.text("a long build"))
    assert (await agent.run_turn("build it")).ok
    (result,) = sent_tool_results(scripted_server)
    assert len(result) <= LIMIT and "zanzibarquux" not in result
    assert result.startswith("line 00000 of the build log") and "line 11999 of the build log" in result
    found = re.search(
        r"1,0\d\d,\d{3} characters in all; the whole output is in the session archive under recall id "
        r"(r[0-9a-f]{10}): recall\(query=",
        result,
    )
    assert found is not None, result[-600:]
    ref = found.group(1)
    original = make_agent.store.recall(agent.session_id, ref)
    assert original is not None and original["name"] == "terminal" and len(original["content"]) > 1_000_000
    assert "ghp_a1B2" not in original["content"] and "ghp_[REDACTED]" in original["content"]  # redacted as kept

    scripted_server.enqueue(Reply.tool_calls([("recall", {"query": "zanzibarquux"})]), Reply.text("found it"))
    assert (await agent.run_turn("what did the middle say?")).ok
    recalled = unwrapped(scripted_server.requests[-1]["messages"][-1]["content"])
    assert ref in recalled and "the middle says zanzibarquux" in recalled

    shown = await recall_for_user(agent, "zanzibarquux")
    assert shown.ok and ref in shown.text and "zanzibarquux" in shown.text
    whole = await recall_for_user(agent, ref)
    assert whole.ok and "line 00000 of the build log" in whole.text and "line 11999 of the build log" in whole.text


async def test_output_within_the_cap_is_not_archived(make_agent, scripted_server):
    agent, _ = make_agent(tools={"output_limit": LIMIT})
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "seq 1 2000"})]), Reply.text("ok"))
    assert (await agent.run_turn("count")).ok
    (result,) = sent_tool_results(scripted_server)
    assert result.startswith("1\n2\n") and "2000" in result and "recall id" not in result
    assert make_agent.store.archived_count(agent.session_id) == 0
