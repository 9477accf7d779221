"""Fixtures for every test package.

Each test runs in its own home, HERMESLITE_HOME and working directory, with no
provider key in its environment, so none reads (or leaks) the real user's files
and keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hermeslite.agent.factory import build_agent
from hermeslite.config import Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.hooks.settings import HooksConfig
from tests.recorder import Recorder
from tests.server import MODEL, ScriptedServer

# The `scripted_server` and `fake_anthropic` fixtures, for every test package.
pytest_plugins = ["tests.server", "tests.fake_anthropic"]

PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY")
XDG_DIRS = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The HERMESLITE_HOME of this test; not created until something needs it."""
    return tmp_path / "home"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The current directory of this test, where ./hermeslite.yaml is looked for."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def _isolate_user_files(
    home: Path, workdir: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Point every user directory at tmp, drop any config override, and leave the repo's cwd.

    HERMESLITE_HOME covers hermeslite's own directories; HOME and the XDG dirs
    cover what a library or a spawned command reads or writes under the user's
    home. That home is made beside tmp_path, not inside it, so the working
    directories tests give the agent stay outside it, as they were outside the
    real home.
    """
    user = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("HOME", str(user))
    for name, folder in XDG_DIRS.items():
        monkeypatch.setenv(name, str(user / folder))
    monkeypatch.setenv("HERMESLITE_HOME", str(home))
    monkeypatch.delenv("HERMESLITE_CONFIG", raising=False)
    monkeypatch.chdir(workdir)


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests must not depend on (or leak) the developer's real keys."""
    for name in PROVIDER_KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def make_agent(scripted_server: ScriptedServer, tmp_path: Path) -> Callable[..., Any]:
    """`make_agent(context_window=..., cwd=..., **section_overrides)` -> (agent, recorder), wired to the scripted
    server through the real litellm path, with a session store shared by every agent of the test
    (`make_agent.store`). The agent works in `cwd` (default: tmp_path)."""
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
        instructions: dict | None = None,
        cwd: Path | None = None,
        hooks: dict | None = None,
        skills: dict | None = None,
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
            instructions=replace(settings.instructions, **(instructions or {})),
            hooks=HooksConfig(**(hooks or {})),
            skills=replace(settings.skills, **(skills or {})),
        )
        llm = LiteLLMClient(model, max_retries=3, retry_base_delay=0.01)
        built = build_agent(
            settings, cwd=cwd or tmp_path, interactive=interactive, session_id=session_id, llm=llm, store=store
        )
        recorder = Recorder()
        built.subscribe(recorder)
        return built, recorder

    make.store = store
    return make
