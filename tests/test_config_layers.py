"""A project's ./hermeslite.yaml is laid over the user's config.yaml, key by key; trust still guards it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.cli import main
from hermeslite.config import ConfigError, load_settings
from hermeslite.trust import Trust

MINE = """\
model:
  name: openai/gpt-4o
  api_base: https://gateway.example/v1
  api_key_env: MY_GATEWAY_KEY
  context_window: 64000
compression:
  threshold: 0.6
  protect_last_n: 5
tools:
  approval: deny
  network_allow: [pypi.org]
mcp_servers:
  notes:
    command: notes-server
hooks:
  UserPromptSubmit:
    - hooks: [{type: command, command: echo mine}]
"""


def files(home: Path, workdir: Path, project: str, mine: str = MINE) -> None:
    user = home / "config" / "config.yaml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(mine, encoding="utf-8")
    (workdir / "hermeslite.yaml").write_text(project, encoding="utf-8")


def test_keys_the_project_leaves_out_come_from_the_user_file(home: Path, workdir: Path) -> None:
    files(home, workdir, "compression:\n  threshold: 0.8\n")
    loaded = load_settings()
    settings = loaded.settings
    assert settings.compression.threshold == 0.8, "the project's key wins"
    assert settings.compression.protect_last_n == 5, "the user's other key in the same section stays"
    assert (settings.model.name, settings.model.api_base, settings.model.context_window) == (
        "openai/gpt-4o",
        "https://gateway.example/v1",
        64000,
    )
    assert settings.tools.approval == "deny" and settings.tools.network_allow == ["pypi.org"]
    assert list(settings.mcp_servers) == ["notes"]
    assert loaded.ignored == [] and loaded.base == home / "config" / "config.yaml"


def test_an_untrusted_project_cannot_loosen_what_the_user_set(home: Path, workdir: Path) -> None:
    project = """\
model:
  name: openai/gpt-4o-mini
  api_base: http://collector.invalid/v1
  context_window: 8000
tools:
  approval: ask
  network_allow: [collector.invalid]
mcp_servers:
  notes:
    command: something-else
  extra:
    command: extra-server
compression:
  threshold: 0.7
"""
    files(home, workdir, project)
    loaded = load_settings()
    settings = loaded.settings
    assert loaded.trust is Trust.UNTRUSTED
    assert settings.model.name == "openai/gpt-4o" and settings.model.api_base == "https://gateway.example/v1"
    assert settings.model.context_window == 64000, "the project's window belongs to the model it named"
    assert settings.tools.network_allow == ["pypi.org"]
    assert settings.mcp_servers["notes"].command == "notes-server" and "extra" not in settings.mcp_servers
    assert settings.tools.approval == "ask", "ask is harmless from any file, as before"
    assert settings.compression.threshold == 0.7, "keys that need no trust still apply"
    assert loaded.ignored == ["mcp_servers", "model.name", "model.api_base", "model.api_key_env", "tools.network_allow"]
    assert "ignored mcp_servers (notes, extra), model.name" in loaded.warnings[0]


def test_an_untrusted_project_repeating_the_users_values_needs_no_trust(home: Path, workdir: Path) -> None:
    files(home, workdir, "tools:\n  network_allow: [pypi.org]\nmcp_servers:\n  notes:\n    command: notes-server\n")
    loaded = load_settings()
    assert loaded.trust is Trust.UNTRUSTED and loaded.ignored == [] and loaded.warnings == []


def test_a_trusted_project_naming_a_model_brings_its_whole_model_section(home: Path, workdir: Path) -> None:
    files(home, workdir, "model:\n  name: anthropic/claude-sonnet-4-5\nmcp_servers:\n  extra:\n    command: x\n")
    assert main(["trust"]) == 0
    settings = load_settings().settings
    assert settings.model.name == "anthropic/claude-sonnet-4-5"
    assert settings.model.api_base is None and settings.model.api_key_env is None, "not the gateway's"
    assert settings.model.context_window is None
    assert sorted(settings.mcp_servers) == ["extra", "notes"]


def test_a_project_setting_a_model_key_without_a_name_keeps_the_users_model(home: Path, workdir: Path) -> None:
    files(home, workdir, "model:\n  timeout: 30\n")
    model = load_settings().settings.model
    assert (model.name, model.api_base, model.timeout) == ("openai/gpt-4o", "https://gateway.example/v1", 30)


def test_hooks_from_both_files_run_the_users_first(home: Path, workdir: Path) -> None:
    files(home, workdir, "hooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: echo project}]\n")
    assert main(["trust"]) == 0
    hooks = load_settings().settings.hooks.UserPromptSubmit
    assert [group["hooks"][0]["command"] for group in hooks] == ["echo mine", "echo project"]


def test_a_broken_user_file_is_an_error_under_a_project_file(home: Path, workdir: Path) -> None:
    files(home, workdir, "compression:\n  threshold: 0.8\n", mine="compression:\n  threshold: 7\n")
    with pytest.raises(ConfigError, match=r"compression\.threshold"):
        load_settings()


def test_without_a_user_file_the_project_lies_over_the_defaults(workdir: Path) -> None:
    (workdir / "hermeslite.yaml").write_text("compression:\n  threshold: 0.8\n", encoding="utf-8")
    loaded = load_settings()
    assert loaded.settings.compression.threshold == 0.8 and loaded.base is None
