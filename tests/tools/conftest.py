"""A ToolContext rooted in the test's own directory, with small limits so tests stay fast."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.tools.base import ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "project"
    root.mkdir()
    return ToolContext(cwd=root, terminal_timeout=10, output_limit=1000)
