"""A session with two compactions, made once per test through the real loop (see session.py)."""

from __future__ import annotations

import pytest

from tests.export.session import Made, two_compactions


@pytest.fixture
async def compacted(make_agent, scripted_server) -> Made:
    agent, _ = make_agent(context_window=16_000)
    return await two_compactions(agent, scripted_server)
