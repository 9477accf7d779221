"""A strict fake of Anthropic's Messages API with a modelled prompt cache (see `server`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import Exchange, FakeAnthropic, Reply

__all__ = ["Exchange", "FakeAnthropic", "Reply", "fake_anthropic"]


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """A fresh server per test (tests/conftest.py registers this module as a plugin)."""
    with FakeAnthropic() as server:
        yield server
