"""Helpers for the agent tests: filler turns, and telling memory-flush requests apart."""

from __future__ import annotations

from typing import Any

from hermeslite.agent.flush import FLUSH_INSTRUCTION
from tests.builders import FILLER


def is_flush_request(body: dict[str, Any]) -> bool:
    """The request that asks the model what is worth keeping before a compaction."""
    return FLUSH_INSTRUCTION in str(body["messages"][-1]["content"])


async def chat(agent: Any, turns: int, text: str = FILLER) -> None:
    """`turns` user turns of `text`, each of which must succeed."""
    for n in range(turns):
        assert (await agent.run_turn(f"turn {n}: {text}")).ok
