"""Which session --continue/--resume opens, and on which model: the recorded one, or a change said out loud."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.config import Settings
from hermeslite.errors import UserFacingError
from hermeslite.llm.settings import ModelConfig
from hermeslite.resume import NO_SESSION, choose_session
from hermeslite.store.sessions import SessionBusy, SessionStore

LOCAL = "http://127.0.0.1:8080/v1"


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "sessions.db")
    yield s
    s.close()


def settings(name: str | None = None, api_base: str | None = None, **more) -> Settings:
    return Settings(model=ModelConfig(name=name, api_base=api_base, **more))


def recorded(store: SessionStore, model: str, api_base: str | None = None) -> str:
    sid = store.create_session(model, "/w", api_base=api_base)
    store.release(sid)
    return sid


def test_continue_goes_back_to_the_recorded_model_and_endpoint(store: SessionStore):
    sid = recorded(store, "openai/test-model", LOCAL)
    config = settings("anthropic/claude-sonnet-4-5", api_key_env="MY_KEY", context_window=50_000)
    choice = choose_session(store, config, continue_latest=True, resume=None, environ={"ANTHROPIC_API_KEY": "k"})
    model = choice.settings.model
    assert (choice.session_id, model.name, model.api_base) == (sid, "openai/test-model", LOCAL)
    assert model.api_key_env is None and model.context_window is None  # they belonged to the other model
    assert choice.notes == [
        f"session {sid} continues on its own model openai/test-model "
        "(the config's is anthropic/claude-sonnet-4-5; --model changes it)"
    ]


def test_same_model_as_the_config_says_nothing_and_keeps_its_settings(store: SessionStore):
    sid = recorded(store, "openai/test-model", LOCAL)
    config = settings("openai/test-model", api_key_env="MY_KEY", context_window=50_000)
    choice = choose_session(store, config, continue_latest=False, resume=sid[:10], environ={})
    assert choice.notes == []
    assert choice.settings.model == ModelConfig("openai/test-model", LOCAL, "MY_KEY", 50_000)


def test_an_explicit_model_wins_and_the_change_is_said(store: SessionStore):
    sid = recorded(store, "openai/test-model", LOCAL)
    choice = choose_session(
        store, settings(), continue_latest=True, resume=None, model="openai/other-model", api_base=LOCAL, environ={}
    )
    assert (choice.settings.model.name, choice.settings.model.api_base) == ("openai/other-model", LOCAL)
    assert choice.notes == [
        f"session {sid} was recorded with openai/test-model; continuing on openai/other-model as asked (--model)"
    ]


def test_only_a_new_endpoint_keeps_the_recorded_model(store: SessionStore):
    recorded(store, "openai/test-model", "http://old:1/v1")
    choice = choose_session(
        store, settings("openai/test-model"), continue_latest=True, resume=None, api_base=LOCAL, environ={}
    )
    assert (choice.settings.model.name, choice.settings.model.api_base) == ("openai/test-model", LOCAL)


def test_a_recorded_model_whose_key_is_gone_gives_way_to_the_config(store: SessionStore):
    sid = recorded(store, "anthropic/claude-sonnet-4-5")
    choice = choose_session(
        store, settings("openai/test-model", LOCAL), continue_latest=True, resume=None, environ={"OPENAI_API_KEY": "k"}
    )
    assert choice.settings.model.name == "openai/test-model"
    assert choice.notes == [
        f"session {sid} was recorded with anthropic/claude-sonnet-4-5, which cannot be used "
        "here (ANTHROPIC_API_KEY is not set); continuing on openai/test-model"
    ]


def test_the_configured_key_variable_counts_for_the_same_provider(store: SessionStore):
    recorded(store, "anthropic/claude-opus-4")
    config = settings("anthropic/claude-sonnet-4-5", api_key_env="WORK_ANTHROPIC_KEY")
    choice = choose_session(store, config, continue_latest=True, resume=None, environ={"WORK_ANTHROPIC_KEY": "k"})
    assert (choice.settings.model.name, choice.settings.model.api_key_env) == (
        "anthropic/claude-opus-4",
        "WORK_ANTHROPIC_KEY",
    )


def test_continue_with_no_sessions_says_it_starts_a_new_one(store: SessionStore):
    choice = choose_session(store, settings("openai/test-model"), continue_latest=True, resume=None, environ={})
    assert (choice.session_id, choice.notes) == (None, [NO_SESSION])
    plain = choose_session(store, settings("openai/test-model"), continue_latest=False, resume=None, environ={})
    assert (plain.session_id, plain.notes) == (None, [])


def test_the_chosen_session_is_claimed_and_a_missing_one_is_one_line(store: SessionStore, tmp_path: Path):
    sid = recorded(store, "openai/test-model")
    choose_session(store, settings(), continue_latest=True, resume=None, environ={})
    with SessionStore(tmp_path / "sessions.db") as other:
        with pytest.raises(SessionBusy):
            choose_session(other, settings(), continue_latest=True, resume=None, environ={})
        with pytest.raises(UserFacingError) as err:
            choose_session(other, settings(), continue_latest=False, resume="1999", environ={})
    assert "no session matches '1999'" in str(err.value)
    assert store.latest_session_id() == sid


def test_a_claude_session_recorded_against_a_proxy_still_needs_its_key(store: SessionStore):
    # Nothing can be sent to Anthropic (or a proxy in front of it) without ANTHROPIC_API_KEY: litellm refuses,
    # and that used to surface as "the provider rejected the API key (401)" although no request was made.
    sid = recorded(store, "anthropic/claude-sonnet-4-5", "http://127.0.0.1:9/v1")
    choice = choose_session(store, settings("openai/test-model", LOCAL), continue_latest=False, resume=sid, environ={})
    assert (choice.settings.model.name, choice.settings.model.api_base) == ("openai/test-model", LOCAL)
    assert choice.notes == [
        f"session {sid} was recorded with anthropic/claude-sonnet-4-5, which cannot be used "
        "here (ANTHROPIC_API_KEY is not set); continuing on openai/test-model"
    ]


def test_an_openai_compatible_server_needs_no_key_to_be_resumed(store: SessionStore):
    sid = recorded(store, "openai/test-model", LOCAL)
    choice = choose_session(store, settings(), continue_latest=False, resume=sid, environ={})
    assert (choice.settings.model.name, choice.settings.model.api_base) == ("openai/test-model", LOCAL)


def test_the_window_of_another_model_is_its_own_however_the_session_is_opened(store: SessionStore):
    # The config's context_window describes its own (Ollama) model. Opening a Claude session with --model and
    # resuming it without must give it the same window: its own, looked up, not the config's 8192.
    config = settings("ollama/llama3.1", "http://127.0.0.1:11434", context_window=8192)
    env = {"ANTHROPIC_API_KEY": "k"}
    new = choose_session(
        store, config, continue_latest=False, resume=None, model="anthropic/claude-sonnet-4-5", environ=env
    )
    assert (new.settings.model.context_window, new.settings.model.api_base) == (None, None)
    sid = recorded(store, "anthropic/claude-sonnet-4-5")
    resumed = choose_session(store, config, continue_latest=False, resume=sid, environ=env)
    assert (resumed.settings.model.name, resumed.settings.model.context_window) == ("anthropic/claude-sonnet-4-5", None)
    store.release(sid)
    again = choose_session(
        store, config, continue_latest=False, resume=sid, model="anthropic/claude-sonnet-4-5", environ=env
    )
    assert again.settings.model.context_window is None


def test_the_config_window_follows_the_model_a_key_picks_when_the_config_names_none(store: SessionStore):
    sid = recorded(store, "anthropic/claude-sonnet-4-5")
    env = {"ANTHROPIC_API_KEY": "k"}
    resumed = choose_session(store, settings(context_window=50_000), continue_latest=True, resume=None, environ=env)
    assert (resumed.session_id, resumed.settings.model.context_window) == (sid, 50_000)


def test_a_model_nobody_named_is_said_and_a_named_one_is_not(store: SessionStore):
    picked = choose_session(store, settings(), continue_latest=False, resume=None, environ={"OPENAI_API_KEY": "k"})
    assert picked.model_note is not None and "using openai/gpt-4o because OPENAI_API_KEY is set" in picked.model_note
    assert not picked.model_note_warns
    local = choose_session(store, settings(), continue_latest=False, resume=None, environ={})
    assert local.model_note is not None and "small embedded model" in local.model_note and local.model_note_warns
    named = choose_session(store, settings("openai/test-model", LOCAL), continue_latest=False, resume=None, environ={})
    assert named.model_note is None
    resumed_own = choose_session(store, settings(), continue_latest=False, resume=recorded(store, "openai/x", LOCAL))
    assert resumed_own.model_note is None  # the session's own model: named by the session


def test_a_session_on_the_configs_model_spelled_another_way_keeps_the_configs_window_and_key(store: SessionStore):
    sid = recorded(store, "anthropic/claude-sonnet-4-5")
    config = settings("claude-sonnet-4-5", api_key_env="MY_KEY", context_window=50_000)
    choice = choose_session(store, config, continue_latest=True, resume=None, environ={"MY_KEY": "k"})
    model = choice.settings.model
    assert (choice.session_id, model.context_window, model.api_key_env) == (sid, 50_000, "MY_KEY")
    assert choice.notes == []  # the same model: nothing to say
