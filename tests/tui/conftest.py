"""HermesApp wired to the scripted OpenAI-compatible server through the real litellm path."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hermeslite.config import DisplayConfig, Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.hooks.settings import HooksConfig
from hermeslite.tui.app import HermesApp
from tests.server import MODEL, ScriptedServer


def make_settings(
    server: ScriptedServer,
    memory_dir: Path,
    *,
    context_window: int = 100_000,
    compression: dict | None = None,
    tools: dict | None = None,
    hooks: dict | None = None,
) -> Settings:
    settings = Settings()
    model = ModelConfig(name=MODEL, api_base=server.base_url, context_window=context_window)
    return replace(
        settings,
        model=model,
        # The figures these tests check assume compaction at half the window.
        compression=replace(settings.compression, memory_flush=False, **{"threshold": 0.5, **(compression or {})}),
        memory=replace(settings.memory, dir=str(memory_dir)),
        tools=replace(settings.tools, **(tools or {})),
        hooks=HooksConfig(**(hooks or {})),
    )


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder outside the project and outside the temp dir (moved away for the test), so writing
    there needs approval."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("tmp")))
    return tmp_path_factory.mktemp("outside")


@pytest.fixture
def make_app(scripted_server: ScriptedServer, tmp_path: Path) -> Callable[..., HermesApp]:
    """`make_app(context_window=..., compression={...}, cwd=...)` -> a HermesApp not yet running."""
    store = SessionStore(tmp_path / "sessions.db")

    def make(
        *,
        context_window: int = 100_000,
        compression: dict | None = None,
        tools: dict | None = None,
        cwd: Path | None = None,
        session_id: str | None = None,
        llm: Any = None,
        hooks: dict | None = None,
        display: dict | None = None,
        **kwargs: Any,
    ) -> HermesApp:
        settings = make_settings(
            scripted_server,
            tmp_path / "memory",
            context_window=context_window,
            compression=compression,
            tools=tools,
            hooks=hooks,
        )
        if display:
            settings.display = DisplayConfig(**display)
        llm = llm or LiteLLMClient(settings.model, max_retries=3, retry_base_delay=0.01)
        workdir = cwd or tmp_path / "project"
        workdir.mkdir(parents=True, exist_ok=True)
        return HermesApp(settings, cwd=workdir, session_id=session_id, llm=llm, store=store, **kwargs)

    make.store = store
    yield make
    store.close()
