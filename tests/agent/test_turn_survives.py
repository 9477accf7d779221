"""The turn in progress survives its own compaction, through the real loop, litellm and a scripted server.

The scripted model is obedient: a user message "RUN: <command>" that has no tool result after it
makes it run the command, and a tool result makes it answer. A compaction that summarized the
turn's own call and result away would leave it looking at an unanswered "RUN:" again, and it
would run the command again (the loop the issue measured: seven runs in three minutes). Each run
appends a line to runs.txt in the project, so the disk says how often the command really ran.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermeslite.agent import events as ev
from hermeslite.agent.compaction import TURN_STOPPED
from hermeslite.context.handoff import OPEN
from hermeslite.context.messages import ARCHIVE_KEY
from hermeslite.context.turn import CUT
from tests.agent.helpers import chat, is_flush_request
from tests.builders import assert_valid
from tests.envelope import unwrapped
from tests.server import Reply, ScriptedServer, estimate_prompt_tokens
from tests.summary_requests import checkpoint, is_summary_request

LOUD = "echo ran >> runs.txt; python3 -c \"import sys; sys.stdout.write('build step ok\\n' * 46_000)\"; echo FINAL-LINE"


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else json.dumps(content)


def obedient(commands_per_call: int = 1):
    """Answers a request as a model that does what the newest unanswered user message says."""

    def reply(body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply.text(checkpoint())
        if is_flush_request(body):
            return Reply.text("nothing to save")
        last = body["messages"][-1]
        if last["role"] == "tool":
            return Reply.text(f"Done: the output ended with {_text(last)[-40:]!r}.")
        asked = _text(last)
        if "RUN: " in asked:
            command = asked.split("RUN: ", 1)[1].splitlines()[0]
            return Reply.tool_calls([("terminal", {"command": command})] * commands_per_call)
        return Reply.text("ok")

    return reply


def runs(tmp_path: Path) -> int:
    path = tmp_path / "runs.txt"
    return path.read_text().count("ran") if path.exists() else 0


def turn_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    return [b for b in server.requests if not is_summary_request(b) and not is_flush_request(b)]


async def test_a_command_that_prints_600_kb_at_a_6k_window_runs_once_and_the_turn_gets_its_answer(
    make_agent, scripted_server, tmp_path
):
    scripted_server.responder = obedient()
    agent, rec = make_agent(context_window=6_000)
    finished = await agent.run_turn(f"RUN: {LOUD}")
    assert finished.ok, rec.of(ev.ErrorEvent)
    assert runs(tmp_path) == 1
    assert [e.name for e in rec.of(ev.ToolStarted)] == ["terminal"]
    assert len(turn_requests(scripted_server)) == 2  # the call, then the answer: no second run
    assert not [b for b in scripted_server.requests if is_summary_request(b)]  # nothing to summarize: only cut
    # The model read the head and tail of its own output, and how to get the whole back.
    result = unwrapped(next(m for m in scripted_server.requests[-1]["messages"] if m["role"] == "tool")["content"])
    assert result.startswith("build step ok") and "FINAL-LINE" in result
    marker = CUT.search(result)
    assert marker is not None and len(result) < 4_000
    ref = agent.messages[3][ARCHIVE_KEY]
    assert f'recall(id="{ref}")' in result
    original = make_agent.store.recall(agent.session_id, ref)
    assert original is not None and len(original["content"]) > 20_000 and "FINAL-LINE" in original["content"]
    assert estimate_prompt_tokens(scripted_server.requests[-1]) < agent.deps.compressor.threshold_tokens
    assert [n for n in rec.of(ev.Notice) if "Cut 1 tool result of this turn" in n.text]
    assert_valid(agent.messages)


async def test_with_earlier_turns_the_history_is_summarized_and_the_turn_kept(make_agent, scripted_server, tmp_path):
    scripted_server.responder = obedient()
    agent, rec = make_agent(context_window=16_000, memory={"flush_min_turns": 1})
    await chat(agent, 10)  # more than cutting the output alone could make room for
    assert not rec.of(ev.CompactionStarted)
    finished = await agent.run_turn(f"RUN: {LOUD}")
    assert finished.ok, rec.of(ev.ErrorEvent)
    assert runs(tmp_path) == 1
    assert len(rec.of(ev.CompactionStarted)) == 1  # one compaction, not a run/overflow/summary cycle
    summaries = [b for b in scripted_server.requests if is_summary_request(b)]
    assert len(summaries) == 1
    # The checkpoint replaced the earlier turns; the ask, the call and its (cut) result follow it.
    roles = [m["role"] for m in agent.messages]
    assert roles[-3:] == ["assistant", "tool", "assistant"] and "RUN: " in _text(agent.messages[-4])
    assert [m for m in agent.messages if m["role"] == "user"] == [agent.messages[-4]]
    assert _text(agent.messages[-4]).startswith(OPEN)  # the checkpoint is merged in front of the ask
    assert_valid(agent.messages)


async def test_an_overflow_the_window_did_not_predict_cuts_the_turn_instead_of_repeating_it(
    make_agent, scripted_server, tmp_path
):
    scripted_server.responder = obedient()
    agent, rec = make_agent(context_window=200_000)
    scripted_server.overflow_above(6_000)
    finished = await agent.run_turn(f"RUN: {LOUD}")
    assert finished.ok, rec.of(ev.ErrorEvent)
    assert runs(tmp_path) == 1
    assert [e.trigger for e in rec.of(ev.CompactionStarted)] == ["reactive"]
    assert agent.deps.compressor.context_length == 6_000


async def test_a_turn_that_does_not_fit_even_cut_stops_with_a_clear_message(make_agent, scripted_server, tmp_path):
    scripted_server.responder = obedient(commands_per_call=12)
    # Never pruned to one line (as a loaded skill is): only the cut to head and tail is left.
    agent, rec = make_agent(context_window=6_000, compression={"never_prune_tools": ["terminal"]})
    finished = await agent.run_turn(f"RUN: {LOUD}")
    assert not finished.ok and finished.reason == "the turn's tool output does not fit the context window"
    assert runs(tmp_path) == 12  # each of the twelve calls once, and no model call after them
    assert len(turn_requests(scripted_server)) == 1
    [error] = rec.of(ev.ErrorEvent)
    assert error.text.startswith("Stopped this turn instead of compacting again: the tool calls and results")
    assert "pipe it through head, tail or grep" in error.text
    assert agent.messages[-1] == {"role": "assistant", "content": TURN_STOPPED}
    assert_valid(agent.messages)
    # The next turn starts from a transcript that fits: the stopped turn is history now.
    scripted_server.responder = None
    assert (await agent.run_turn("what happened?")).ok
    assert runs(tmp_path) == 12
