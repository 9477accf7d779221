"""The models /model offers when given no name: the configured one, recent ones, and those litellm knows.

Three sources, in this order, each name once:
- the configured model (`model.name`, or the one a key picks), then the one
  the session runs on now when /model switched away from it;
- models recent sessions ran on, newest first (the session store);
- the chat models litellm's table lists for each provider whose key is set
  (`litellm.validate_environment` says which; a provider's usual model first).

Each comes with its context window and price per million tokens from
litellm's table, None where the table has no figure. Building the list
imports litellm (~3 s the first time), so `model_choices` runs it in a worker
thread and a front end never waits on it in a frame.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from hermeslite.llm.select import DEFAULT_MODELS, resolve_model
from hermeslite.llm.settings import ModelConfig
from hermeslite.llm.setup import load_litellm
from hermeslite.store.errors import StoreError

if TYPE_CHECKING:
    from .loop import Agent

Source = Literal["configured", "current", "recent", "known"]
PER_MILLION = 1_000_000


@dataclass(frozen=True)
class ModelChoice:
    """One model the picker offers, with what litellm's table says of it."""

    name: str  # as /model NAME takes it: provider/model
    source: Source
    context_window: int | None
    input_per_million: float | None  # dollars per million input tokens
    output_per_million: float | None


async def model_choices(agent: Agent, configured: ModelConfig) -> list[ModelChoice]:
    """The models to offer in `agent`'s session; litellm is imported and read in a worker thread.

    A store that cannot be read leaves out the recent models, not the list."""
    try:
        recent = [row.model for row in agent.list_sessions() if row.model]
    except StoreError:
        recent = []
    return await asyncio.to_thread(build_choices, configured, agent.model_name, recent)


def build_choices(
    configured: ModelConfig, current: str, recent: Iterable[str], environ: Mapping[str, str] | None = None
) -> list[ModelChoice]:
    """Configured, current, recent, then the known models of the keyed providers; each name once.

    litellm comes through `load_litellm`, which keeps it on the table bundled in the wheel: imported
    bare, it would fetch its price map from GitHub first (seconds of retries, and warnings, offline)."""
    litellm = load_litellm()
    table: Mapping[str, Any] = litellm.model_cost
    leads_to = resolve_model(configured, environ)
    configured_name = leads_to.name or current
    named: list[tuple[str, Source]] = [(configured_name, "configured"), (current, "current")]
    named += [(name, "recent") for name in recent]
    named += [(name, "known") for name in known_models(litellm, environ)]
    seen: set[str] = set()
    choices = []
    for name, source in named:
        if name and name not in seen:
            seen.add(name)
            choices.append(_choice(table, name, source))
    if choices and leads_to.context_window and choices[0].name == leads_to.name:
        # the config's window belongs to the model it leads to, and is the one in use (llm/select.for_model)
        choices[0] = replace(choices[0], context_window=int(leads_to.context_window))
    return choices


def known_models(litellm: Any, environ: Mapping[str, str] | None = None) -> list[str]:
    """The chat models litellm lists for each provider whose key is set, as provider/model names.

    Which variable holds a provider's key is our table (`PROVIDER_KEYS`):
    litellm.validate_environment counts providers that need no variable as
    keyed and, for some (github_copilot), starts a login over the network.
    """
    env = os.environ if environ is None else environ
    names: list[str] = []
    for prov, variables in PROVIDER_KEYS.items():
        if not any(env.get(variable) for variable in variables):
            continue
        models = litellm.models_by_provider.get(prov) or ()
        chat = {_full_name(prov, raw) for raw in models if _entry(litellm.model_cost, prov, raw).get("mode") == "chat"}
        names += sorted(chat, key=lambda name: (name not in _USUAL, name))
    return names


# The variable(s) litellm reads a provider's key from, for the providers a picker offers models of.
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY"),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "cohere_chat": ("COHERE_API_KEY",),
    "perplexity": ("PERPLEXITYAI_API_KEY", "PERPLEXITY_API_KEY"),
    "cerebras": ("CEREBRAS_API_KEY",),
}
_USUAL = frozenset(model for _, model in DEFAULT_MODELS)


def _full_name(prov: str, raw: str) -> str:
    return raw if raw.startswith(f"{prov}/") else f"{prov}/{raw}"


def _entry(table: Mapping[str, Any], prov: str, raw: str) -> Mapping[str, Any]:
    found = table.get(raw) or table.get(_full_name(prov, raw))
    return found if isinstance(found, Mapping) else {}


def _choice(table: Mapping[str, Any], name: str, source: Source) -> ModelChoice:
    prov, _, bare = name.partition("/")
    entry = _entry(table, prov, bare) if bare else _entry(table, "", name)
    window = entry.get("max_input_tokens")
    return ModelChoice(
        name=name,
        source=source,
        context_window=window if isinstance(window, int) and window > 0 else None,
        input_per_million=_per_million(entry.get("input_cost_per_token")),
        output_per_million=_per_million(entry.get("output_cost_per_token")),
    )


def _per_million(value: object) -> float | None:
    return round(float(value) * PER_MILLION, 6) if isinstance(value, int | float) else None


def short_list(choices: Sequence[ModelChoice], known: int = 5) -> list[ModelChoice]:
    """The line chat's numbered list: every configured, current and recent model, and a few known ones:
    each keyed provider's usual model, then the others in turn, one per provider at a time; only models
    with a window and a price, dated snapshots left to the app's list."""
    named = [c for c in choices if c.source != "known"]
    usable = [c for c in choices if c.source == "known" and (c.name in _USUAL or _listable(c))]
    seen: dict[str, int] = {}
    turn = []  # (round, position) of each usable model: its place among its provider's
    for position, choice in enumerate(usable):
        prov = choice.name.split("/", 1)[0]
        turn.append((seen.get(prov, 0), position))
        seen[prov] = seen.get(prov, 0) + 1
    return named + [usable[position] for _, position in sorted(turn)[:known]]


def _listable(choice: ModelChoice) -> bool:
    priced = choice.context_window is not None and choice.input_per_million is not None
    return priced and _DATED.search(choice.name) is None


_DATED = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")  # -2024-08-06, -20251001, -0613
