"""/model <name>: the running session goes on with another model, in the app and the line chat alike.

The endpoint and key settings carry over only within the same provider: a
local server's api_base means nothing to anthropic/. The new model is
recorded with the session once a request on it is answered, so `--continue`
comes back to it; a /model taken back before sending changes nothing saved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermeslite.llm.settings import ModelConfig

if TYPE_CHECKING:
    from hermeslite.llm.types import LLMClient

    from .loop import Agent


def config_for(current: ModelConfig, name: str) -> ModelConfig:
    """`current` with the model `name`, by the rule `--model` follows too (see `for_model`)."""
    from hermeslite.llm.select import for_model

    return for_model(current, name)


async def switch_model(
    agent: Agent, current: ModelConfig, name: str, max_retries: int
) -> tuple[LLMClient, ModelConfig]:
    """A client for `name`, prepared off the loop and handed to `agent`; returns it and its config."""
    cfg = config_for(current, name)
    return await switch_to(agent, cfg, max_retries), cfg


async def switch_to(agent: Agent, cfg: ModelConfig, max_retries: int) -> LLMClient:
    """A client for the model config `cfg` (its endpoint and key as given), prepared off the loop and
    handed to `agent` (the first-run screen's choice); returns it."""
    from hermeslite.llm.select import make_client, resolve_model

    llm = make_client(resolve_model(cfg), max_retries=max_retries)
    await llm.prepare()  # litellm imported and the window looked up off the loop
    agent.switch_model(llm)
    agent.saver.using_model(cfg.name or "", cfg.api_base)
    return llm
