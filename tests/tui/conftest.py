"""HermesApp wired to the scripted OpenAI-compatible server through the real litellm path."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hermeslite.config import ModelConfig, Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.store.sessions import SessionStore
from hermeslite.tui.app import HermesApp
from tests.server import Reply, ScriptedServer
from tests.summary_requests import is_summary_request

MODEL = "openai/test-model"
SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def checkpoint() -> str:
    from hermeslite.context.summary_prompt import SECTIONS

    return "\n".join(f"## {name}\nNone." for name, _ in SECTIONS)


def answer_summaries(server: ScriptedServer, text: str | None = None) -> None:
    """Summary requests get a well-formed checkpoint; everything else goes to the queue."""
    body_text = text or checkpoint()
    server.responder = lambda body: Reply.text(body_text) if is_summary_request(body) else None


def make_settings(
    server: ScriptedServer,
    memory_dir: Path,
    *,
    context_window: int = 100_000,
    compression: dict | None = None,
    tools: dict | None = None,
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
    )


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
        **kwargs: Any,
    ) -> HermesApp:
        settings = make_settings(
            scripted_server, tmp_path / "memory", context_window=context_window, compression=compression, tools=tools
        )
        llm = llm or LiteLLMClient(settings.model, max_retries=3, retry_base_delay=0.01)
        workdir = cwd or tmp_path / "project"
        workdir.mkdir(parents=True, exist_ok=True)
        return HermesApp(settings, cwd=workdir, session_id=session_id, llm=llm, store=store, **kwargs)

    make.store = store
    yield make
    store.close()


# -- driving the app ----------------------------------------------------------------


async def settle(pilot) -> None:
    """Let workers finish and everything the agent said be drawn."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await until(pilot, lambda: pilot.app.feed.idle)
    for _ in range(3):
        await pilot.pause()


async def ready(pilot) -> None:
    """Wait until the agent is built and the header has stopped saying "loading"."""
    from hermeslite.tui.widgets.header import HeaderBar

    await pilot.app.host.ready()
    for _ in range(100):
        await pilot.pause()
        if not pilot.app.query_one(HeaderBar).starting:
            return
    raise AssertionError("the app never reported the agent ready")


async def send(pilot, text: str, *, wait: bool = True) -> None:
    """Type `text` into the prompt (set directly: pressing 500 keys is slow) and press Enter."""
    pilot.app.prompt.text = text
    pilot.app.prompt.move_cursor((pilot.app.prompt.document.line_count - 1, len(text.splitlines()[-1])))
    await pilot.press("enter")
    if wait:
        await settle(pilot)


async def until(pilot, condition, timeout: float = 10.0) -> None:
    """Pause until `condition()` holds (for things in flight, such as a running tool)."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)
