"""Typed settings from one YAML file, with errors a user can act on.

`Settings` has one field per top-level YAML section. Each section is a
dataclass whose fields are that section's keys and carry `kind`, `help`, `min`
and `max` metadata (see `hermeslite.context.fieldspec`), so the loader
validates, warns about typos and renders every section the same way: a new
section is one dataclass plus one field here. A section read by one layer
lives in that layer (`model:` in llm/settings.py, `tools:` in
tools/settings.py, `compression:` in context/settings.py), so the layer does
not reach up to the loader. Every key is documented in
`config.example.yaml`, which a test keeps in step with the dataclasses.

A `./hermeslite.yaml` found by looking (not named with `--config` or
`$HERMESLITE_CONFIG`) may have come with a cloned repository: the keys in
`GUARDED_KEYS` are taken from it only once the user trusts it (see trust.py).
Hooks are the one thing two files give: with a project file in use, the
`hooks:` of the user's own config.yaml run too, so a guard the user set up
does not vanish in a folder that has its own settings.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from hermeslite.config_file import ConfigError, parse_yaml, read_file, sections_from
from hermeslite.config_layers import keys_set, overlay
from hermeslite.context.fieldspec import check_and_normalize, spec
from hermeslite.context.settings import CompressionConfig
from hermeslite.llm.settings import ModelConfig
from hermeslite.paths import config_dir
from hermeslite.tools.hooks.settings import HooksConfig
from hermeslite.tools.mcp.config import SECTION as MCP_SECTION
from hermeslite.tools.mcp.config import McpServerConfig, parse_servers
from hermeslite.tools.settings import ToolsConfig
from hermeslite.trust import Trust, TrustStore

CONFIG_ENV = "HERMESLITE_CONFIG"
PROJECT_FILE = "hermeslite.yaml"
USER_FILE = "config.yaml"


# Keys a project file may set only when trusted: they choose where the conversation,
# the files tools read and the user's key are sent (a model name picks the
# provider, so a repository could move a user of a local model onto a cloud one
# whose key is in the environment), which local files go into every request
# (instructions.files: a repository naming `.env` would send the user's secrets),
# or widen what tools may do without asking.
# A name without a dot guards a whole section: `hooks` run commands as the user.
GUARDED_KEYS = (
    "model.name",
    "model.api_base",
    "model.api_key_env",
    "model.api_key",
    "compression.summary_model",
    "tools.approval",
    "tools.sandbox",
    "tools.writable_paths",
    "tools.readable_paths",
    "tools.pass_env",
    "tools.env_passthrough",
    "tools.network_allow",
    "tools.web_fetch",  # allow_private and domains open the network to the web_fetch tool
    "memory.dir",
    "instructions.files",
    "hooks",
    MCP_SECTION,  # the whole block: a server is a program hermeslite runs, or an endpoint it sends data to
)
# Values of guarded keys that loosen nothing, so an untrusted file may still set them.
HARMLESS_VALUES: dict[str, tuple[Any, ...]] = {"tools.approval": ("ask", "deny"), "instructions.files": ([],)}


@dataclass
class AgentConfig:
    """The turn loop."""

    max_iterations: int = field(
        default=50,
        metadata=spec("whole", "model calls per user turn before the agent stops and reports", lo=1, hi=1000),
    )
    max_retries: int = field(
        default=3,
        metadata=spec("whole", "retries for rate limits and transient provider errors, with backoff", lo=0, hi=10),
    )
    instructions: str | None = field(
        default=None, metadata=spec("text_or_null", "extra instructions appended to the built-in system prompt")
    )
    mention_tokens: int = field(
        default=20_000,
        metadata=spec(
            "whole",
            "tokens the files named by @path in one message may take together, at most a quarter of the "
            "context window; a file past it is attached as its start",
            lo=0,
            hi=1_000_000,
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class MemoryConfig:
    """MEMORY.md (the agent's notes) and USER.md (about the user)."""

    dir: str | None = field(
        default=None,
        metadata=spec("text_or_null", "folder holding MEMORY.md and USER.md; null means the user data directory"),
    )
    memory_char_limit: int = field(
        default=2_200, metadata=spec("whole", "maximum characters in MEMORY.md", lo=100, hi=1_000_000)
    )
    user_char_limit: int = field(
        default=1_375, metadata=spec("whole", "maximum characters in USER.md", lo=100, hi=1_000_000)
    )
    flush_min_turns: int = field(
        default=6,
        metadata=spec("whole", "user turns a session needs before compaction first saves memories", lo=0, hi=10_000),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class InstructionsConfig:
    """Project instruction files (AGENTS.md): read into the system prompt, never obeyed as settings."""

    files: list[str] = field(
        default_factory=lambda: ["AGENTS.md", "CLAUDE.md"],
        metadata=spec(
            "file_names",
            "instruction file names in order of preference: in the config directory and in each folder from "
            "the git root down to the working directory, the first that exists is read; [] reads none",
        ),
    )
    max_bytes: int = field(
        default=32_768,
        metadata=spec(
            "whole",
            "bytes of instruction files the system prompt takes, all files together; the file that crosses "
            "it is cut and those after it are left out, with a warning",
            lo=1_024,
            hi=1_048_576,
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class CheckpointsConfig:
    """File checkpoints: snapshots of the project around every tool that can write, for /rewind, /undo, /diff."""

    enabled: bool = field(
        default=True,
        metadata=spec(
            "bool",
            "snapshot the project's files (in hermeslite's own store, never the project's .git) before and "
            "after each tool that can write; false: /rewind takes back only the conversation",
        ),
    )
    exclude: list[str] = field(
        default_factory=list,
        metadata=spec(
            "patterns", "gitignore-style patterns never snapshotted or restored, beside the project's .gitignore"
        ),
    )
    max_file_mb: float = field(
        default=10,
        metadata=spec("number", "files larger than this (in MB) are left out, with a note", lo=0.001, hi=4096),
    )
    max_files: int = field(
        default=100_000,
        metadata=spec("whole", "a project with more files than this is not snapshotted", lo=1, hi=10_000_000),
    )
    keep_days: float = field(
        default=30,
        metadata=spec("number", "snapshots of sessions older than this many days are deleted", lo=0, hi=36_500),
    )
    max_store_mb: float = field(
        default=2048,
        metadata=spec(
            "number", "per project: over this size, the oldest sessions' snapshots are deleted", lo=1, hi=10_000_000
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class SkillsConfig:
    """Skills (SKILL.md folders) the model loads on demand."""

    shared: bool = field(
        default=True,
        metadata=spec(
            "bool", "also read ~/.agents/skills and ./.agents/skills, the folders other agents share skills in"
        ),
    )
    catalog_chars: int = field(
        default=8_000,
        metadata=spec(
            "whole",
            "most characters the skills list takes in the system prompt; the skills past it are counted in one line",
            lo=500,
            hi=200_000,
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)


@dataclass
class DisplayConfig:
    """How the chat app lays itself out."""

    todo_pane: str = field(
        default="auto",
        metadata=spec(
            "choice",
            "the todo pane above the input: auto shows it while the todo list has open items, on keeps it "
            "shown, off hides it (Ctrl+T toggles it in any case)",
            choices=("auto", "on", "off"),
        ),
    )

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
    instructions: InstructionsConfig = field(
        default_factory=InstructionsConfig, metadata={"help": "project instruction files (AGENTS.md)"}
    )
    hooks: HooksConfig = field(
        default_factory=HooksConfig,
        metadata={"help": "your commands, run before and after tool calls and at other events"},
    )
    skills: SkillsConfig = field(
        default_factory=SkillsConfig, metadata={"help": "skills (SKILL.md folders) the model loads on demand"}
    )
    mcp_servers: dict[str, McpServerConfig] = field(
        default_factory=dict, metadata={"help": "MCP servers whose tools the model may call, by name"}
    )
    checkpoints: CheckpointsConfig = field(
        default_factory=CheckpointsConfig, metadata={"help": "file snapshots for /rewind, /undo and /diff"}
    )
    display: DisplayConfig = field(default_factory=DisplayConfig, metadata={"help": "the chat app's layout"})


@dataclass
class LoadedSettings:
    """The settings plus where they came from (None: built-in defaults) and anything the user should hear about.

    `trust` is None unless the source is a project file found in the
    directory; `ignored` lists the guarded keys it would change, left at the
    user's values (or the defaults) because that file is not trusted; `base` is the user's config.yaml when
    a project file is laid over it.
    """

    settings: Settings
    source: Path | None
    warnings: list[str] = field(default_factory=list)
    trust: Trust | None = None
    ignored: list[str] = field(default_factory=list)
    base: Path | None = None


@dataclass(frozen=True)
class ConfigSource:
    path: Path
    project: bool  # ./hermeslite.yaml found by looking, not named by the user: guarded keys need trust


def default_config_paths(cwd: Path | None = None) -> list[Path]:
    """Files tried, in order, when neither `--config` nor `$HERMESLITE_CONFIG` names one."""
    return [(cwd or Path.cwd()) / PROJECT_FILE, config_dir() / USER_FILE]


def find_config_file(cli_path: str | None = None, *, cwd: Path | None = None) -> ConfigSource | None:
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
            return ConfigSource(path, project=False)
    project, user = default_config_paths(base)
    if project.exists():
        return ConfigSource(project, project=True)
    return ConfigSource(user, project=False) if user.exists() else None


def load_settings(cli_path: str | None = None, *, cwd: Path | None = None) -> LoadedSettings:
    """Find, parse and validate the config file; raises ConfigError when it cannot be used.

    A project file is laid over the user's config.yaml key by key (see
    config_layers.py). From an untrusted project file the guarded keys it
    would change keep the user's values (or the defaults), with one warning
    naming them and the command that trusts it.
    """
    source = find_config_file(cli_path, cwd=cwd)
    if source is None:
        return LoadedSettings(Settings(), None)
    warnings: list[str] = []
    data = read_file(source.path)
    parsed = parse_yaml(source.path, data, warnings)
    settings = _settings_from(parsed, source.path, warnings)
    base_path: Path | None = None
    trust: Trust | None = None
    ignored: list[str] = []
    if source.project:
        store = TrustStore()
        trust = store.check(source.path, data)
        if store.problem:
            warnings.append(store.problem)
        base, base_path = _user_layer()
        present = keys_set(parsed, settings)
        guarded = {} if trust is Trust.TRUSTED else guarded_values(settings, base=base, present=present)
        ignored = list(guarded)
        if ignored:
            named = [f"{key} ({guarded[key]})" if key == MCP_SECTION else key for key in ignored]
            warnings.append(_untrusted_warning(source.path, named, trust))
        settings = overlay(base, settings, _kept(present, ignored))
    if settings.tools.pass_env:
        warnings.append("tools.pass_env is deprecated: name the variables in tools.env_passthrough instead")
    return LoadedSettings(settings, source.path, warnings, trust=trust, ignored=ignored, base=base_path)


def _user_layer() -> tuple[Settings, Path | None]:
    """The user's config.yaml under a project file, and its path (None when there is none).

    A broken user file is an error here as it is without a project file: its
    provider and key would otherwise be silently replaced by the defaults.
    """
    path = config_dir() / USER_FILE
    if not path.is_file():
        return Settings(), None
    return _settings_from(parse_yaml(path, read_file(path), []), path, []), path


def _kept(present: set[str], ignored: list[str]) -> set[str]:
    """The keys of a project file that apply: those it sets, less the ignored ones. An ignored
    model key drops the project's whole `model` section (its window and endpoint belong to
    the model it names)."""
    kept = present - set(ignored)
    if any(key.startswith("model.") for key in ignored):
        kept = {key for key in kept if key != "model" and not key.startswith("model.")}
    return kept


def project_guarded_values(path: Path, data: bytes) -> dict[str, Any]:
    """The guarded keys the config file `path` (with bytes `data`) would set, with their values."""
    return guarded_values(settings_from_bytes(path, data))


def settings_from_bytes(path: Path, data: bytes) -> Settings:
    """The settings the config file `path` would give if it held `data`; raises ConfigError."""
    return _settings_from(parse_yaml(path, data, []), path, [])


def guarded_values(
    settings: Settings, *, base: Settings | None = None, present: set[str] | None = None
) -> dict[str, Any]:
    """Guarded keys whose values differ from `base` (the defaults) and are not harmless, by dotted name.

    With `present` (the keys a file sets, see config_layers.keys_set) only those count: a key
    the file leaves out takes the base's value, whatever it is.
    """
    base = base or Settings()
    found: dict[str, Any] = {}
    new_servers = [name for name, entry in settings.mcp_servers.items() if base.mcp_servers.get(name) != entry]
    if new_servers and _sets(present, MCP_SECTION):
        found[MCP_SECTION] = ", ".join(new_servers)
    for dotted in GUARDED_KEYS:
        if dotted == MCP_SECTION or not _sets(present, dotted):  # servers: a mapping of entries, handled above
            continue
        section, _, key = dotted.partition(".")
        values, base_values = asdict(getattr(settings, section)), asdict(getattr(base, section))
        if not key:  # a whole section: the keys of it that are set
            if changed := {name: v for name, v in values.items() if v and v != base_values[name]}:
                found[dotted] = changed
            continue
        if key not in values:  # a key this version of the settings does not have
            continue
        value = values[key]
        if value != base_values[key] and value not in HARMLESS_VALUES.get(dotted, ()):
            found[dotted] = value
    return found


def _sets(present: set[str] | None, dotted: str) -> bool:
    """Whether a file setting `present` (None: any key) sets `dotted`, alone or with its whole section."""
    return present is None or dotted in present or dotted.partition(".")[0] in present


def _untrusted_warning(path: Path, ignored: list[str], trust: Trust) -> str:
    shown = display_path(path)
    if trust is Trust.CHANGED:
        return (
            f"ignored {', '.join(ignored)} from {shown}: it changed since you trusted it; "
            "run `hermeslite trust` again to use them"
        )
    return f"ignored {', '.join(ignored)} from {shown}: this folder is not trusted; run `hermeslite trust` to use them"


def display_path(path: Path) -> str:
    """`./hermeslite.yaml` for a file in the current directory, else the path as it is."""
    return f"./{path.name}" if path.parent == Path.cwd() else str(path)


HIDDEN_KEY = "(set, not shown)"


def format_settings(settings: Settings) -> str:
    """The effective settings as YAML; saved to a file, it loads back to the same settings, except a
    saved `model.api_key`, which is never printed."""
    data = asdict(settings)
    if data["model"].get("api_key"):
        data["model"]["api_key"] = HIDDEN_KEY
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


def _section_classes() -> dict[str, type]:
    """Section name -> section dataclass, read off `Settings` so there is no second list to update;
    `mcp_servers`, a mapping of entries named by the user, is read by its own parser."""
    return {f.name: f.default_factory for f in fields(Settings) if f.name != MCP_SECTION}  # type: ignore[misc]  # every other Settings field is a section with a default_factory


def _settings_from(data: Any, path: Path, warnings: list[str]) -> Settings:
    """Build Settings from parsed YAML (see `config_file.sections_from`, `tools.mcp.config.parse_servers`)."""
    if not isinstance(data, dict) or MCP_SECTION not in data:
        return Settings(**sections_from(data, _section_classes(), path, warnings))
    rest = {key: value for key, value in data.items() if key != MCP_SECTION}
    sections = sections_from(rest, _section_classes(), path, warnings)
    return Settings(**sections, mcp_servers=parse_servers(data[MCP_SECTION], path, warnings))
