"""Typed settings from one YAML file, with errors a user can act on.

`Settings` has one field per top-level YAML section. Each section is a
dataclass whose fields are that section's keys and carry `kind`, `help`, `min`
and `max` metadata (see `hermeslite.context.settings`), so the loader
validates, warns about typos and renders every section the same way: a new
section is one dataclass plus one field here. Every key is documented in
`config.example.yaml`, which a test keeps in step with the dataclasses.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from hermeslite.context.fieldspec import check_and_normalize, spec, validate_fields
from hermeslite.context.settings import CompressionConfig
from hermeslite.paths import config_dir

CONFIG_ENV = "HERMESLITE_CONFIG"
PROJECT_FILE = "hermeslite.yaml"
USER_FILE = "config.yaml"


class ConfigError(Exception):
    """A config file that cannot be used. `str()` is the message for the user: names the file, no traceback."""


@dataclass
class ModelConfig:
    """Which LLM to talk to. With no name and no provider key in the environment,
    the embedded SmolLM2 model runs locally so hermeslite works with no setup."""

    name: str | None = field(default=None, metadata=spec(
        "model", "litellm model string (openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3.1, ...); "
        "null picks one from the API keys in the environment, else the embedded local model"))
    api_base: str | None = field(default=None, metadata=spec(
        "text_or_null", "base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 for llama.cpp"))
    api_key_env: str | None = field(default=None, metadata=spec(
        "text_or_null", "environment variable that holds the API key; null uses the provider's usual one"))
    context_window: int | None = field(default=None, metadata=spec(
        "whole_or_null", "the model's context window in tokens; null looks it up (8192 if unknown)",
        lo=512, hi=100_000_000))
    timeout: float = field(default=60, metadata=spec(
        "number", "seconds to wait for a connection, and for each next piece of a streamed reply, "
        "before the request counts as timed out", lo=1, hi=3600))

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class AgentConfig:
    """The turn loop."""

    max_iterations: int = field(default=50, metadata=spec(
        "whole", "model calls per user turn before the agent stops and reports", lo=1, hi=1000))
    max_retries: int = field(default=3, metadata=spec(
        "whole", "retries for rate limits and transient provider errors, with backoff", lo=0, hi=10))
    instructions: str | None = field(default=None, metadata=spec(
        "text_or_null", "extra instructions appended to the built-in system prompt"))

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class ToolsConfig:
    """What tools may do without asking."""

    approval: str = field(default="ask", metadata=spec(
        "choice", "dangerous terminal commands: ask (the UI asks; headless denies), allow, or deny",
        choices=("ask", "allow", "deny")))
    terminal_timeout: float = field(default=120, metadata=spec(
        "number", "seconds before a terminal command is killed", lo=1, hi=86_400))
    output_limit: int = field(default=30_000, metadata=spec(
        "whole", "characters of tool output kept per call; longer output keeps its head and tail",
        lo=1_000, hi=1_000_000))

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class MemoryConfig:
    """MEMORY.md (the agent's notes) and USER.md (about the user)."""

    dir: str | None = field(default=None, metadata=spec(
        "text_or_null", "folder holding MEMORY.md and USER.md; null means the user data directory"))
    memory_char_limit: int = field(default=2_200, metadata=spec(
        "whole", "maximum characters in MEMORY.md", lo=100, hi=1_000_000))
    user_char_limit: int = field(default=1_375, metadata=spec(
        "whole", "maximum characters in USER.md", lo=100, hi=1_000_000))
    flush_min_turns: int = field(default=6, metadata=spec(
        "whole", "user turns a session needs before compaction first saves memories", lo=0, hi=10_000))

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class Settings:
    """Everything configurable. Each field is a YAML section; its default factory is the section's class."""

    model: ModelConfig = field(default_factory=ModelConfig, metadata={"help": "which LLM to talk to"})
    compression: CompressionConfig = field(
        default_factory=CompressionConfig, metadata={"help": "when and how the transcript is compressed"}
    )
    agent: AgentConfig = field(default_factory=AgentConfig, metadata={"help": "the turn loop"})
    tools: ToolsConfig = field(default_factory=ToolsConfig, metadata={"help": "what tools may do without asking"})
    memory: MemoryConfig = field(default_factory=MemoryConfig, metadata={"help": "MEMORY.md and USER.md"})


@dataclass
class LoadedSettings:
    """The settings plus where they came from (None: built-in defaults) and anything the user should hear about."""

    settings: Settings
    source: Path | None
    warnings: list[str] = field(default_factory=list)


def default_config_paths(cwd: Path | None = None) -> list[Path]:
    """Files tried, in order, when neither `--config` nor `$HERMESLITE_CONFIG` names one."""
    return [(cwd or Path.cwd()) / PROJECT_FILE, config_dir() / USER_FILE]


def find_config_file(cli_path: str | None = None, *, cwd: Path | None = None) -> Path | None:
    """The config file to use, or None for defaults.

    A file the user named explicitly must exist: silently falling back to
    defaults would hide a typo in the path. Relative names resolve against `cwd`.
    """
    base = cwd or Path.cwd()
    named = ((cli_path, "--config"), (os.environ.get(CONFIG_ENV) or None, f"${CONFIG_ENV}"))
    for name, origin in named:
        if name is not None:
            path = base / Path(name).expanduser()
            if not path.exists():
                raise ConfigError(f"config file {path} (from {origin}) does not exist")
            return path
    return next((path for path in default_config_paths(base) if path.exists()), None)


def load_settings(cli_path: str | None = None, *, cwd: Path | None = None) -> LoadedSettings:
    """Find, parse and validate the config file; raises ConfigError when it cannot be used."""
    path = find_config_file(cli_path, cwd=cwd)
    if path is None:
        return LoadedSettings(Settings(), None)
    warnings: list[str] = []
    settings = _settings_from(_read_yaml(path), path, warnings)
    return LoadedSettings(settings, path, warnings)


def format_settings(settings: Settings) -> str:
    """The effective settings as YAML; saved to a file, it loads back to the same settings."""
    return yaml.safe_dump(asdict(settings), sort_keys=False, default_flow_style=False, allow_unicode=True)


def _read_yaml(path: Path) -> Any:
    """Parse the file, turning every read or syntax failure into a ConfigError that names the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (bad byte at offset {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(_yaml_error_message(path, exc)) from None


def _yaml_error_message(path: Path, exc: yaml.YAMLError) -> str:
    """`<file>: invalid YAML at line L, column C: <problem>`, using yaml's 0-based mark.

    yaml's context, when it has one, leads the problem: alone, a problem such
    as "but found another document" reads as half a sentence.
    """
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    problem = ", ".join(part for part in parts if part) or str(exc).splitlines()[0]
    if mark is None:
        return f"{path}: invalid YAML: {problem}"
    return f"{path}: invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _section_classes() -> dict[str, type]:
    """Section name -> section dataclass, read off `Settings` so there is no second list to update."""
    return {f.name: f.default_factory for f in fields(Settings)}  # type: ignore[misc]


def _settings_from(data: Any, path: Path, warnings: list[str]) -> Settings:
    """Build Settings from parsed YAML, collecting every problem before raising so one run shows them all."""
    if data is None:  # empty file, or only comments
        return Settings()
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections such as `compression:`, got {_describe(data)}")
    sections = _section_classes()
    warnings.extend(_unknown_key_warning(path, str(key), str(key), sections) for key in data if key not in sections)
    built: dict[str, Any] = {}
    problems: list[str] = []
    for name, cls in sections.items():
        raw = data.get(name)
        if raw is None:  # absent, or `compression:` with every key commented out
            continue
        if not isinstance(raw, dict):
            problems.append(f"{name} must be a mapping of keys, got {_describe(raw)}")
            continue
        section, section_problems = _build_section(name, cls, raw, path, warnings)
        built[name] = section
        problems.extend(section_problems)
    if problems:
        raise ConfigError(_problems_message(path, problems))
    return Settings(**built)


def _build_section(name: str, cls: type, raw: dict, path: Path, warnings: list[str]) -> tuple[Any, list[str]]:
    """One section from its mapping: unknown keys warn, bad values become `<section>.<key> ...` problems.

    The values are first set on a default instance and checked with the
    metadata-driven validator, which reads only field metadata and so serves
    any section; constructing directly would stop at a joined ValueError.
    """
    known = [f.name for f in fields(cls)]
    values = {key: value for key, value in raw.items() if key in known}
    warnings.extend(
        _unknown_key_warning(path, f"{name}.{key}", str(key), known) for key in raw if key not in known
    )
    candidate = cls()
    for key, value in values.items():
        setattr(candidate, key, value)
    problems = [f"{name}.{problem}" for problem in validate_fields(candidate)]
    return (None if problems else cls(**values)), problems


def _unknown_key_warning(path: Path, dotted: str, key: str, valid: Iterable[str]) -> str:
    """`<file>: unknown key a.b (did you mean c?)`; the suggestion catches the usual typo."""
    close = difflib.get_close_matches(key, list(valid), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{path}: unknown key {dotted}{hint}"


def _problems_message(path: Path, problems: list[str]) -> str:
    """One line for one problem; a header and one indented line each for several."""
    if len(problems) == 1:
        return f"{path}: {problems[0]}"
    return f"{path}: {len(problems)} problems:\n" + "\n".join(f"  {problem}" for problem in problems)


_YAML_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "true/false"),
    (dict, "a mapping"),
    (list, "a list"),
    (str, "a string"),
    ((int, float), "a number"),
)


def _describe(value: Any) -> str:
    """What the user wrote, in YAML words rather than Python type names."""
    return next((word for kind, word in _YAML_KINDS if isinstance(value, kind)), type(value).__name__)
