"""Which session a command-line chat continues, and on which model.

`--continue` takes the most recent session and `--resume ID` a given one.
A session records the model and endpoint it talks to, and continuing it
without `--model` goes back to them: a conversation that silently moves to
another model (another provider, another window) is not the one the user
left. Whatever is not what the user might expect is said in one line: that
there was no session to continue, that the session's model is not the
configured one, that `--model` changes it, or that the recorded model cannot
be used here (its key is not set) so the configured one takes over.

The session is claimed here, before any front end starts, so a session open
in another process ends the command with "in use by pid N" at once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from hermeslite.config import Settings
from hermeslite.errors import UserFacingError
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionInfo, SessionNotFound, SessionStore

NO_SESSION = "no session to continue; starting a new one"


@dataclass(frozen=True)
class SessionChoice:
    session_id: str | None  # None: start a new session
    settings: Settings  # with the model the session goes on with
    notes: list[str] = field(default_factory=list)  # one line each, for the user
    model_note: str | None = None  # which model nobody named was picked, and why (see llm.select.pick_note)
    model_note_warns: bool = False  # the pick is the embedded model: a warning, not information
    mode: str | None = None  # --mode; None: the session's recorded mode (agent/modes.py)


def with_overrides(settings: Settings, *, model: str | None, api_base: str | None) -> Settings:
    """Command-line flags win over the config file. `--model` follows the rule `/model` follows
    (`for_model`): the config's window is its own model's, its endpoint and key stay within a provider."""
    if not model and not api_base:
        return settings
    from hermeslite.llm.select import for_model

    changed = for_model(settings.model, model) if model else settings.model
    if api_base:
        changed = replace(changed, api_base=api_base)
    return replace(settings, model=changed)


def choose_session(
    store: SessionStore,
    settings: Settings,
    *,
    continue_latest: bool,
    resume: str | None,
    model: str | None = None,
    api_base: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> SessionChoice:
    """The session to open (claimed), the settings to open it with, and what to tell the user."""
    env = os.environ if environ is None else environ
    configured = with_overrides(settings, model=model, api_base=api_base)
    session_id = _pick(store, continue_latest=continue_latest, resume=resume)
    if session_id is None:
        return _said(SessionChoice(None, configured, [NO_SESSION] if continue_latest else []), env)
    store.claim(session_id)
    info = store.get_session(session_id)
    if info is None or not info.model:
        return _said(SessionChoice(session_id, configured), env)
    chosen, note = continue_model(info, configured.model, model_given=bool(model), api_base=api_base, environ=env)
    return _said(SessionChoice(session_id, replace(configured, model=chosen), [note] if note else []), env)


def _said(choice: SessionChoice, environ: Mapping[str, str]) -> SessionChoice:
    """`choice` with a line about its model when nobody named it (picked by a key, or the local one)."""
    from hermeslite.llm.select import pick_model, pick_note

    pick = pick_model(choice.settings.model, environ)
    return replace(choice, model_note=pick_note(pick), model_note_warns=pick.local and not pick.named)


def _pick(store: SessionStore, *, continue_latest: bool, resume: str | None) -> str | None:
    if resume is not None:  # `--resume ""` (an empty variable in a script) is an error, not a new session
        try:
            return store.resolve_id(resume)
        except SessionNotFound as exc:
            raise UserFacingError(str(exc)) from None
    if continue_latest:
        return store.latest_session_id()
    return None


def continue_model(
    info: SessionInfo,
    configured: ModelConfig,
    *,
    model_given: bool,
    api_base: str | None,
    environ: Mapping[str, str],
) -> tuple[ModelConfig, str | None]:
    """The model config a resumed session talks to, and a line for the user when it is worth one."""
    from hermeslite.llm.model_names import same_model
    from hermeslite.llm.select import provider, resolve_model

    recorded = str(info.model)
    current = resolve_model(configured, environ).name
    same_name = same_model(recorded, current)  # `claude-x` is `anthropic/claude-x`
    if model_given:
        note = (
            None
            if same_name
            else (f"session {info.id} was recorded with {recorded}; continuing on {current} as asked (--model)")
        )
        return configured, note
    problem = missing_key(recorded, info.api_base or api_base, configured, environ)
    if problem:
        note = (
            None
            if same_name
            else (
                f"session {info.id} was recorded with {recorded}, which cannot be used here ({problem}); "
                f"continuing on {current}"
            )
        )
        return configured, note
    # The config's window, endpoint and key belong to the model it leads to (`current`), as with
    # --model and /model (`for_model`); the session's recorded endpoint wins over the config's.
    same_provider = same_name or provider(recorded) == provider(current)
    chosen = replace(
        configured,
        name=recorded,
        api_base=api_base or info.api_base or (configured.api_base if same_name else None),
        api_key_env=configured.api_key_env if same_provider else None,
        api_key=configured.api_key if same_provider else None,
        context_window=configured.context_window if same_name else None,
    )
    note = (
        None
        if same_name
        else (
            f"session {info.id} continues on its own model {recorded} (the config's is {current}; --model changes it)"
        )
    )
    return chosen, note


def missing_key(name: str, api_base: str | None, configured: ModelConfig, environ: Mapping[str, str]) -> str | None:
    """Why a hosted model cannot be called here ("ANTHROPIC_API_KEY is not set"), or None.

    Only the providers hermeslite picks by key are checked; a model from
    another provider is assumed usable. An endpoint of its own (api_base)
    spares the key only for an OpenAI-compatible server: a Claude session
    recorded against a proxy still needs ANTHROPIC_API_KEY, as litellm does.
    """
    from hermeslite.llm.select import DEFAULT_MODELS, provider, resolve_model

    if api_base and provider(name) == "openai":
        return None
    if provider(resolve_model(configured, environ).name) == provider(name):
        if configured.api_key:
            return None
        if configured.api_key_env:
            return None if environ.get(configured.api_key_env) else f"{configured.api_key_env} is not set"
    for variable, default in DEFAULT_MODELS:
        if provider(default) == provider(name) and not environ.get(variable):
            return f"{variable} is not set"
    return None
