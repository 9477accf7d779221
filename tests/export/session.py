"""A stored session with two compactions, made through the real agent loop against the scripted server."""

from __future__ import annotations

from dataclasses import dataclass

from hermeslite.agent.loop import Agent
from tests.builders import FILLER
from tests.secret_samples import vendor_samples
from tests.server import Reply, ScriptedServer
from tests.summary_requests import answer_summaries, checkpoint

FENCED_OUTPUT = "before\n```python\nx = 1\n```\n````\nafter"
SECRET = next(s for s in vendor_samples() if s.vendor.lower().startswith("github"))
USER_TURNS = [f"question {n}: please look at part {n}. {FILLER * 4}" for n in range(1, 6)]


@dataclass(frozen=True)
class Made:
    agent: Agent
    checkpoints: list[str]  # the checkpoint text of each compaction, oldest first


async def two_compactions(agent: Agent, server: ScriptedServer) -> Made:
    """Turns 1-2, /compress, turns 3-4, /compress, turn 5. Turn 1 runs a command whose output holds a
    code fence and a credential; every reply is `answer N`."""
    made = []
    for n, text in enumerate(USER_TURNS, start=1):
        if n == 1:
            command = f"printf '%s\\n' '{FENCED_OUTPUT}' 'token {SECRET.key}'"
            server.enqueue(Reply.tool_calls([("terminal", {"command": command})]))
        server.enqueue(Reply.text(f"answer {n}"))
        assert (await agent.run_turn(text)).ok
        if n in (2, 4):
            made.append(checkpoint(f"compacted after turn {n}"))
            answer_summaries(server, made[-1])
            result = await agent.compress_now()
            assert result.changed and not result.aborted, result
            server.responder = None
    return Made(agent, made)
