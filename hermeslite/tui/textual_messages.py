"""Textual messages about the agent's life cycle (built, or failed to start).

Turn events do not travel as messages: see feed.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from hermeslite.agent.loop import Agent


class AgentReady(Message):
    """The agent exists (litellm loaded, session opened): the header and meter can fill in."""

    def __init__(self, agent: Agent) -> None:
        super().__init__()
        self.agent = agent


class BootFailed(Message):
    """The model or the session could not be opened; the next send tries again."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error
