"""An agent wired to the scripted OpenAI-compatible server through the real litellm path."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent.factory import build_agent
from hermeslite.config import ModelConfig, Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.store.sessions import SessionStore
from tests.server import ScriptedServer

MODEL = "openai/test-model"


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


class Recorder:
    """Collects every event an agent emits."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def text(self) -> str:
        return "".join(e.text for e in self.of(ev.TextDelta))


@pytest.fixture
def make_agent(scripted_server: ScriptedServer, tmp_path: Path) -> Callable[..., Any]:
    """`make_agent(context_window=..., **section_overrides)` -> (agent, recorder)."""
    store = SessionStore(tmp_path / "sessions.db")

    def make(
        *,
        context_window: int = 100_000,
        session_id: str | None = None,
        interactive: bool = False,
        compression: dict | None = None,
        memory: dict | None = None,
        tools: dict | None = None,
        agent: dict | None = None,
    ):
        settings = Settings()
        model = ModelConfig(name=MODEL, api_base=scripted_server.base_url, context_window=context_window)
        settings = replace(
            settings,
            model=model,
            compression=replace(settings.compression, **(compression or {})),
            memory=replace(settings.memory, dir=str(tmp_path / "memory"), **(memory or {})),
            tools=replace(settings.tools, **(tools or {})),
            agent=replace(settings.agent, **(agent or {})),
        )
        llm = LiteLLMClient(model, max_retries=3, retry_base_delay=0.01)
        built = build_agent(
            settings, cwd=tmp_path, interactive=interactive, session_id=session_id, llm=llm, store=store
        )
        recorder = Recorder()
        built.subscribe(recorder)
        return built, recorder

    make.store = store
    return make
