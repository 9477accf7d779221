"""The `hooks:` block: matchers, and every mistake in it named at load time by its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.config import ConfigError, load_settings
from hermeslite.tools.hooks.matcher import matches
from hermeslite.tools.hooks.settings import DEFAULT_TIMEOUT, HookCommand, HookGroup, describe, table_of


@pytest.mark.parametrize(
    ("matcher", "hit", "miss"),
    [
        ("", ["terminal", "mcp__gh__list"], []),
        ("*", ["terminal", "write_file"], []),
        ("terminal", ["terminal"], ["terminal2", "Terminal", "read_file"]),
        ("read_file|write_file", ["read_file", "write_file"], ["patch"]),
        ("read_file, patch", ["read_file", "patch"], ["write_file"]),
        ("*_file", ["read_file", "write_file"], ["terminal", "file"]),
        ("mcp__github__*", ["mcp__github__create_issue"], ["mcp__gitlab__x", "github"]),
        ("mcp__.*__write.*", ["mcp__fs__write_file"], ["mcp__fs__read_file"]),
        ("^write", ["write_file"], ["rewrite"]),
        ("Bash", ["terminal"], ["read_file"]),
        ("Edit|Write", ["patch", "write_file"], ["terminal", "read_file"]),
        ("manual", ["manual"], ["auto"]),
    ],
)
def test_matchers(matcher: str, hit: list[str], miss: list[str]) -> None:
    assert all(matches(matcher, name) for name in hit)
    assert not any(matches(matcher, name) for name in miss)


def write_config(workdir: Path, text: str) -> None:
    (workdir / "hermeslite.yaml").write_text(text, encoding="utf-8")


def test_a_claude_code_hooks_block_loads_as_it_is(workdir: Path) -> None:
    (workdir / "settings.json").write_text(
        '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
        '"command": "./check.sh", "timeout": 30, "statusMessage": "checking"}]}], '
        '"Stop": [{"hooks": [{"type": "command", "command": "make test"}]}]}}',
        encoding="utf-8",
    )
    loaded = load_settings("settings.json")
    assert loaded.warnings == []
    assert table_of(loaded.settings.hooks) == {
        "PreToolUse": (HookGroup("Bash", (HookCommand("./check.sh", 30.0),)),),
        "Stop": (HookGroup("", (HookCommand("make test", DEFAULT_TIMEOUT),)),),
    }
    assert describe(loaded.settings.hooks) == "PreToolUse (Bash): ./check.sh; Stop: make test"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("hooks:\n  PreToolUse: ./check.sh\n", "hooks.PreToolUse must be a list of groups"),
        ("hooks:\n  PreToolUse:\n    - ./check.sh\n", "hooks.PreToolUse[0] must be a mapping with hooks:"),
        (
            "hooks:\n  Stop:\n    - matcher: x\n",
            "hooks.Stop[0].hooks must be a non-empty list of commands, got nothing",
        ),
        (
            "hooks:\n  Stop:\n    - hooks: [{command: ''}]\n",
            "hooks.Stop[0].hooks[0].command must be a non-empty string, got an empty string",
        ),
        (
            "hooks:\n  Stop:\n    - hooks: [{command: x, timeout: 0}]\n",
            "hooks.Stop[0].hooks[0].timeout must be a number of seconds above 0 and at most 86,400, got 0",
        ),
        (
            "hooks:\n  Stop:\n    - hooks: [{type: prompt, command: x}]\n",
            "hooks.Stop[0].hooks[0].type: only command hooks run here, got 'prompt'",
        ),
        (
            "hooks:\n  Stop:\n    - hooks: [{command: x, async: true}]\n",
            "hooks.Stop[0].hooks[0]: unknown key async (a hook has type: command, command, timeout)",
        ),
        ("hooks:\n  Stop:\n    - mather: x\n      hooks: [{command: x}]\n", "hooks.Stop[0]: unknown key mather"),
        (
            "hooks:\n  PreToolUse:\n    - matcher: 'mcp__(x'\n      hooks: [{command: x}]\n",
            "hooks.PreToolUse[0].matcher is not a valid regular expression",
        ),
    ],
)
def test_a_mistake_is_named_by_its_place(workdir: Path, text: str, problem: str) -> None:
    write_config(workdir, text)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert problem in str(info.value)


def test_an_event_name_with_a_typo_is_a_warning_with_the_right_name(workdir: Path) -> None:
    write_config(workdir, "hooks:\n  PreToolUSe: []\n")
    assert any("unknown key hooks.PreToolUSe (did you mean PreToolUse?)" in w for w in load_settings().warnings)


def test_hermeslite_config_prints_hooks_that_load_back_the_same(workdir: Path) -> None:
    from hermeslite.config import format_settings

    (workdir / "mine.yaml").write_text(
        "hooks:\n  Stop:\n    - hooks:\n        - command: make test\n          timeout: 120\n", encoding="utf-8"
    )
    settings = load_settings("mine.yaml").settings
    (workdir / "again.yaml").write_text(format_settings(settings), encoding="utf-8")
    assert load_settings("again.yaml").settings == settings
