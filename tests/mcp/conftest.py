"""Fixtures for the MCP client's tests: servers started from configs, and an agent that has them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hermeslite.agent.factory import build_agent, start_mcp
from hermeslite.agent.loop import Agent
from hermeslite.config import Settings
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.mcp.config import McpServerConfig
from hermeslite.tools.mcp.manager import McpServers
from tests.mcp_servers.http_server import HttpMcpServer
from tests.recorder import Recorder
from tests.server import MODEL, ScriptedServer


@pytest.fixture
def start_servers(workdir: Path) -> Iterator[Callable[..., McpServers]]:
    """`start_servers(name={config keys}, ...)` -> running McpServers, closed after the test."""
    made: list[McpServers] = []

    def start(**configs: dict[str, Any]) -> McpServers:
        servers = McpServers({name: McpServerConfig(**config) for name, config in configs.items()}, workdir)
        servers.start()
        made.append(servers)
        return servers

    yield start
    for servers in made:
        servers.close()


@pytest.fixture
def http_server() -> Iterator[HttpMcpServer]:
    with HttpMcpServer(token="s3cret-token-value") as server:
        yield server


def mcp_settings(model: ModelConfig, tmp_path: Path, servers: dict[str, dict[str, Any]], **tools: Any) -> Settings:
    """Settings for `model` with these MCP servers and `tools:` keys; no memory flush."""
    settings = Settings()
    return replace(
        settings,
        model=model,
        memory=replace(settings.memory, dir=str(tmp_path / "memory")),
        compression=replace(settings.compression, memory_flush=False),
        tools=replace(settings.tools, **tools),
        mcp_servers={name: McpServerConfig(**config) for name, config in servers.items()},
    )


@pytest.fixture
def mcp_agent(
    scripted_server: ScriptedServer, tmp_path: Path, workdir: Path
) -> Iterator[Callable[..., tuple[Agent, Recorder]]]:
    """`mcp_agent(servers={name: config}, interactive=False, **tools_keys)` -> (agent, recorder): an
    agent on the scripted server through the real litellm path, with those MCP servers started."""
    store = SessionStore(tmp_path / "sessions.db")
    started: list[McpServers] = []

    def make(servers: dict[str, dict[str, Any]], *, interactive: bool = False, **tools: Any) -> tuple[Agent, Recorder]:
        model = ModelConfig(name=MODEL, api_base=scripted_server.base_url, context_window=100_000)
        settings = mcp_settings(model, tmp_path, servers, **tools)
        mcp = start_mcp(settings, workdir)
        assert mcp is not None
        started.append(mcp)
        llm = LiteLLMClient(settings.model, max_retries=0, retry_base_delay=0.01)
        agent = build_agent(settings, cwd=workdir, interactive=interactive, llm=llm, store=store, mcp=mcp)
        recorder = Recorder()
        agent.subscribe(recorder)
        return agent, recorder

    yield make
    for mcp in started:
        mcp.close()
    store.close()
