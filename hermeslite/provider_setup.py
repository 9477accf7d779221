"""Connecting a provider: the choices, one cheap request that proves them, a minimal user config.

`hermeslite setup` (a line dialogue, setup_command.py) and the app's first-run
screen (tui/screens/first_run.py) ask the same questions and end here. The
key is checked with a one-token request through litellm before anything is
written, so a typo in a key is found now, named in one line, and not at the
first message. The key itself goes into the file only when the user asks:
otherwise the config names the variable that holds it (`api_key_env`), and
the user exports it in their shell profile.

The first-run screen shows once: when nothing is configured (no config file,
no `--model`) and no provider key is set. A marker file in the state
directory remembers that it was answered or dismissed.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hermeslite.config import CONFIG_ENV, USER_FILE, ConfigError, load_settings
from hermeslite.context.fieldspec import is_web_url
from hermeslite.llm.settings import ModelConfig
from hermeslite.paths import config_dir, ensure_dir, state_dir

FIRST_RUN_MARKER = "first-run-done"
# Keys that describe one model: a new choice replaces all of them, so nothing of the old model lingers.
MODEL_KEYS = ("name", "api_base", "api_key_env", "api_key", "context_window")
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Provider:
    id: str
    label: str
    model: str  # the model suggested for it
    key_env: str | None = None  # the variable its key usually lives in; None: no key
    api_base: str | None = None  # the endpoint suggested for it
    asks_url: bool = False  # the user must give the endpoint


PROVIDERS = (
    Provider("openai", "OpenAI", "openai/gpt-4o", "OPENAI_API_KEY"),
    Provider("anthropic", "Anthropic", "anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    Provider("openrouter", "OpenRouter", "openrouter/anthropic/claude-sonnet-4.5", "OPENROUTER_API_KEY"),
    Provider("gemini", "Gemini", "gemini/gemini-2.5-flash", "GEMINI_API_KEY"),
    Provider("ollama", "Ollama on this machine", "ollama/llama3.1", api_base="http://127.0.0.1:11434"),
    Provider("compatible", "An OpenAI-compatible server (llama.cpp, vLLM, LM Studio)", "openai/local", asks_url=True),
    Provider("local", "The embedded model (no key; chat only, no tools)", "local/smollm2"),
)


def provider_by_id(pid: str) -> Provider:
    for provider in PROVIDERS:
        if provider.id == pid:
            return provider
    raise ValueError(f"unknown provider {pid!r}: one of {', '.join(p.id for p in PROVIDERS)}")


@dataclass(frozen=True)
class Choice:
    """What the user chose; `key` is a pasted key (kept in memory unless `save_key`)."""

    provider: Provider
    model: str
    api_base: str | None = None
    key_env: str | None = None
    key: str | None = None
    save_key: bool = False

    def model_config(self) -> ModelConfig:
        """The config the check runs with: a pasted key is used even when it will not be saved."""
        return ModelConfig(name=self.model, api_base=self.api_base, api_key_env=self.key_env, api_key=self.key)

    def section(self) -> dict[str, Any]:
        """The `model:` block to write: the key itself only when the user asked for it."""
        section: dict[str, Any] = {"name": self.model}
        if self.api_base:
            section["api_base"] = self.api_base
        if self.key and self.save_key:
            section["api_key"] = self.key
        elif self.key_env:
            section["api_key_env"] = self.key_env
        return section


def key_answer(provider: Provider, answer: str, environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(key variable, pasted key) from what the user typed at the key question.

    Empty: the provider's usual variable, which must be set. A set variable's
    name: that variable. Anything else is the key itself, kept for the check
    and named after the provider's variable in the config.
    """
    answer = answer.strip()
    if not answer:
        if provider.key_env and environ.get(provider.key_env):
            return provider.key_env, None
        raise ValueError(f"{provider.key_env} is not set: paste the key, or name the variable that holds it")
    if VARIABLE.fullmatch(answer) and answer.upper() == answer:
        if not environ.get(answer):
            raise ValueError(f"{answer} is not set in this shell: export it first, or paste the key itself")
        return answer, None
    return provider.key_env, answer


def check_url(url: str) -> str:
    url = url.strip()
    if not is_web_url(url):
        raise ValueError(f"{url!r} is not an http:// or https:// URL (e.g. http://127.0.0.1:8080/v1)")
    return url


async def check(choice: Choice) -> str | None:
    """One cheap request with the chosen model, endpoint and key: None when it answered, else why
    not in one line (the key was rejected, nothing listens at the URL, the model is unknown)."""
    from hermeslite.llm.errors import LLMError
    from hermeslite.llm.select import is_local

    cfg = choice.model_config()
    if is_local(cfg):
        from hermeslite.llm.local import gguf_path

        try:
            gguf_path()
        except LLMError as exc:
            return str(exc)
        return None
    from hermeslite.llm.litellm_client import LiteLLMClient

    try:
        await LiteLLMClient(cfg, max_retries=0).probe()
    except LLMError as exc:
        return str(exc)
    return None


def target_file(cli_path: str | None = None) -> Path:
    """Where `setup` writes: `--config FILE`, else $HERMESLITE_CONFIG, else the user's config.yaml."""
    if cli_path:
        return Path(cli_path).expanduser()
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV]).expanduser()
    return config_dir() / USER_FILE


@dataclass(frozen=True)
class Written:
    path: Path
    backup: Path | None  # the previous file, when there was one (its comments are not carried over)


def write_config(choice: Choice, path: Path) -> Written:
    """Write `choice` as the `model:` block of `path`, keeping the file's other settings.

    The old file is kept beside it as `.bak` (rewriting it drops its comments),
    the new one is owner-only when it holds a key, and a file that would not
    load back is never left in place.
    """
    data: dict[str, Any] = {}
    backup = None
    if path.exists():
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot update {path}: {exc}; fix or move it, then run setup again") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"cannot update {path}: it is not a YAML mapping; fix or move it")
        data = loaded or {}
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
    model = {k: v for k, v in (data.get("model") or {}).items() if k not in MODEL_KEYS}
    data["model"] = {**choice.section(), **model}
    ensure_dir(path.parent)
    temporary = path.with_name(path.name + ".new")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("# written by `hermeslite setup`; config.example.yaml documents every key\n")
        yaml.safe_dump(data, out, sort_keys=False, default_flow_style=False, allow_unicode=True)
    try:
        load_settings(str(temporary))
    except ConfigError:
        temporary.unlink()
        raise
    os.replace(temporary, path)
    return Written(path, backup)


def first_run_due(*, config_found: bool, model_named: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the app offers the first-run screen: nothing configured, no key set, not answered before."""
    from hermeslite.llm.select import DEFAULT_MODELS

    env = os.environ if environ is None else environ
    if config_found or model_named or any(env.get(variable) for variable, _ in DEFAULT_MODELS):
        return False
    return not (state_dir() / FIRST_RUN_MARKER).exists()


def first_run_done() -> None:
    """Remember that the first-run screen was answered or dismissed: it is not shown again."""
    (ensure_dir(state_dir()) / FIRST_RUN_MARKER).touch()
