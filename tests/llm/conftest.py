"""Fixtures for the litellm adapter tests: clients pointed at the scripted server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from tests.server import MODEL, ScriptedServer


@pytest.fixture
def make_client(scripted_server: ScriptedServer) -> Callable[..., LiteLLMClient]:
    """`make_client(max_retries=3, **model_config)`: a LiteLLMClient for openai/test-model on the scripted server."""

    def make(
        *, max_retries: int = 3, retry_base_delay: float = 0.01, on_retry: Any = None, **config: Any
    ) -> LiteLLMClient:
        config.setdefault("name", MODEL)
        config.setdefault("api_base", scripted_server.base_url)
        config.setdefault("timeout", 30)
        return LiteLLMClient(
            ModelConfig(**config), max_retries=max_retries, retry_base_delay=retry_base_delay, on_retry=on_retry
        )

    return make


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """litellm trips pydantic deprecation and schema warnings on its own types; they are not ours to fix."""
    here = str(__import__("pathlib").Path(__file__).parent)
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning:litellm.*"))
            item.add_marker(pytest.mark.filterwarnings("ignore::UserWarning:pydantic.*"))
