"""The `hooks:` settings block, in the shape Claude Code's settings use, so a hook block copies over:

    hooks:
      PreToolUse:
        - matcher: terminal
          hooks:
            - type: command
              command: ~/bin/check-command
              timeout: 30

One field per event, each a list of groups: a `matcher` choosing what the
group applies to, and the commands it runs. The values stay as the YAML wrote
them, so `hermeslite config` prints them back and the file round-trips; every
problem is found when the file is loaded, named by its place
(`hooks.PreToolUse[0].hooks[1].timeout must be ...`), because a hook meant to
guard something must not be silently dropped. `table_of` reads them into typed
groups once per session.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from hermeslite.context.fieldspec import check_and_normalize, spec

from .matcher import matcher_problem

DEFAULT_TIMEOUT = 60.0  # seconds a hook command may run before it is killed
MAX_TIMEOUT = 86_400
GROUP_KEYS = ("matcher", "hooks")
# `statusMessage` and `once` are Claude Code keys with nothing to do here; they are accepted so a copied block loads.
COMMAND_KEYS = ("type", "command", "timeout", "statusMessage", "once")
SUPPORTED = "type: command, command, timeout"


@dataclass(frozen=True)
class HookCommand:
    command: str  # a bash command line
    timeout: float  # seconds

    def argv(self) -> list[str]:
        return ["bash", "-c", self.command]


@dataclass(frozen=True)
class HookGroup:
    matcher: str  # "" applies to everything
    commands: tuple[HookCommand, ...]


def check_groups(value: Any) -> list[str]:
    """The problems of one event's list of groups, each naming its place (see fieldspec.Check)."""
    if not isinstance(value, list):
        return [f" must be a list of groups (- matcher: ...  hooks: [...]), got {_kind(value)}"]
    problems: list[str] = []
    for i, group in enumerate(value):
        where = f"[{i}]"
        if not isinstance(group, dict):
            problems.append(f"{where} must be a mapping with hooks: and an optional matcher:, got {_kind(group)}")
            continue
        problems += [
            f"{where}: unknown key {key} (a group has matcher and hooks)" for key in group if key not in GROUP_KEYS
        ]
        matcher = group.get("matcher")
        if matcher is not None and not isinstance(matcher, str):
            problems.append(f"{where}.matcher must be a string, got {_kind(matcher)}")
        elif isinstance(matcher, str) and (problem := matcher_problem(matcher)):
            problems.append(f"{where}.matcher {problem}")
        commands = group.get("hooks")
        if not isinstance(commands, list) or not commands:
            problems.append(f"{where}.hooks must be a non-empty list of commands, got {_kind(commands)}")
            continue
        for j, command in enumerate(commands):
            problems += _check_command(command, f"{where}.hooks[{j}]")
    return problems


def _check_command(command: Any, where: str) -> list[str]:
    if not isinstance(command, dict):
        return [f"{where} must be a mapping such as {{type: command, command: ./check.sh}}, got {_kind(command)}"]
    problems = [f"{where}: unknown key {key} (a hook has {SUPPORTED})" for key in command if key not in COMMAND_KEYS]
    if command.get("type", "command") != "command":
        problems.append(f"{where}.type: only command hooks run here, got {command.get('type')!r}")
    text = command.get("command")
    if not isinstance(text, str) or not text.strip():
        problems.append(f"{where}.command must be a non-empty string, got {_kind(text)}")
    timeout = command.get("timeout")
    if timeout is not None and not (_is_number(timeout) and 0 < timeout <= MAX_TIMEOUT):
        problems.append(
            f"{where}.timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:,}, got {timeout!r}"
        )
    return problems


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    """What the user wrote, in YAML words."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return "a string" if value.strip() else "an empty string"
    for kind, word in ((bool, "true/false"), (dict, "a mapping"), (list, "a list")):
        if isinstance(value, kind):
            return word
    return "a number" if _is_number(value) else type(value).__name__


def _groups(help_text: str) -> dict[str, Any]:
    return spec("checked", help_text, check=check_groups)


@dataclass
class HooksConfig:
    """Commands run at events of a session; the field names are Claude Code's event names."""

    PreToolUse: list[dict[str, Any]] = field(
        default_factory=list,
        metadata=_groups("before a tool call runs; may block it (exit 2, or JSON) with a reason the model reads"),
    )
    PostToolUse: list[dict[str, Any]] = field(
        default_factory=list, metadata=_groups("after a tool call; may add context for the model next to its result")
    )
    UserPromptSubmit: list[dict[str, Any]] = field(
        default_factory=list,
        metadata=_groups("when you send a prompt, before the model sees it; may block it or add context"),
    )
    PreCompact: list[dict[str, Any]] = field(
        default_factory=list, metadata=_groups("before a compaction (manual or auto); may block it or add a focus")
    )
    PostCompact: list[dict[str, Any]] = field(
        default_factory=list, metadata=_groups("after a compaction, with its summary; informational")
    )
    SessionStart: list[dict[str, Any]] = field(
        default_factory=list, metadata=_groups("at the first prompt of a session (startup or resume); may add context")
    )
    Stop: list[dict[str, Any]] = field(
        default_factory=list, metadata=_groups("when the model ends its turn; may ask it to go on, with a reason")
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)


EVENTS = tuple(f.name for f in fields(HooksConfig))
HookTable = dict[str, tuple[HookGroup, ...]]


def table_of(config: HooksConfig) -> HookTable:
    """The configured groups of each event that has any, typed (the config has been checked)."""
    table: HookTable = {}
    for event in EVENTS:
        groups = tuple(
            HookGroup(
                matcher=str(group.get("matcher") or ""),
                commands=tuple(
                    HookCommand(str(command["command"]), float(command.get("timeout") or DEFAULT_TIMEOUT))
                    for command in group["hooks"]
                ),
            )
            for group in getattr(config, event)
        )
        if groups:
            table[event] = groups
    return table


def describe(config: HooksConfig) -> str:
    """`PreToolUse (terminal): ./check.sh; Stop: make test`: what trusting a file lets it run."""
    parts = []
    for event, groups in table_of(config).items():
        for group in groups:
            where = f"{event} ({group.matcher})" if group.matcher else event
            parts.append(f"{where}: " + ", ".join(command.command for command in group.commands))
    return "; ".join(parts)
