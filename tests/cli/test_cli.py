"""The `hermeslite` command as a user runs it: exit codes, stdout, stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hermeslite import __version__
from hermeslite.cli import main
from hermeslite.config import Settings, format_settings


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"hermeslite {__version__}\n"


def test_help_lists_options_and_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: hermeslite")
    for item in (
        "--config FILE",
        "-p TEXT",
        "--model NAME",
        "--api-base URL",
        "--continue",
        "--resume ID",
        "config",
        "sessions",
    ):
        assert item in out


def test_unknown_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--frobnicate"]) == 2
    assert "unrecognized arguments: --frobnicate" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "unknown"),
    [(["--mod=plan", "-p", "hi"], "--mod=plan"), (["--verb", "-p", "hi"], "--verb"), (["trust", "--rev"], "--rev")],
)
def test_a_prefix_of_an_option_is_not_taken_for_it(
    argv: list[str], unknown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--mode plan` read as `--model plan` would run an ordinary session the user believed read-only."""
    assert main(argv) == 2
    assert f"unrecognized arguments: {unknown}" in capsys.readouterr().err


def test_api_base_that_is_not_a_url_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--api-base", "localhost:8080/v1", "-p", "hi"]) == 2
    assert capsys.readouterr().err.endswith(
        "error: argument --api-base: 'localhost:8080/v1' is not an http:// or https:// URL "
        "(e.g. http://127.0.0.1:8080/v1)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["-p", "hi", "sessions"],
        ["--continue", "config"],
        ["--resume", "2026", "sessions"],
        ["-p", "x", "trust"],
        ["--mode", "plan", "sessions"],
    ],
)
def test_a_chat_option_with_a_command_is_a_usage_error_not_dropped(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.endswith(
        "error: -p, --continue, --resume and --mode start a chat; they do not go with a command\n"
    )


def test_config_without_file_shows_defaults_and_where_it_looked(
    workdir: Path, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)  # no key: the embedded model and its 8,192-token window
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    first, second, third, rest = out.split("\n", 3)
    assert first.startswith("# no config file found")
    assert str(workdir / "hermeslite.yaml") in first and str(home / "config" / "config.yaml") in first
    assert second.startswith("# sandbox: ")
    assert third == (
        f"# project instructions: none (looked for AGENTS.md or CLAUDE.md in {home / 'config'} "
        f"and from / down to {workdir})"
    )
    settings, threshold = rest.rsplit("\n# compaction for ", 1)
    assert settings + "\n" == format_settings(Settings())
    assert (
        threshold == "local/smollm2: 6,144 tokens: 75% of the 8,192-token window "
        "(auto: windows under 512K compact at 75%)\n"
    )
    assert yaml.safe_load(out) == yaml.safe_load(rest), "the output is itself a valid config file"


@pytest.mark.parametrize("before_command", [True, False])
def test_config_names_the_file_and_shows_its_values(
    tmp_path: Path, before_command: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("compression:\n  threshold: 0.7\n", encoding="utf-8")
    option = ["--config", str(path)]
    assert main([*option, "config"] if before_command else ["config", *option]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"# settings from {path}\n")
    assert "  threshold: 0.7\n" in captured.out
    assert captured.err == ""


def test_config_shows_the_threshold_of_the_model_given_with_model_and_a_guessed_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "compression:\n  model_thresholds:\n    gpt-4o: 0.6\n  threshold_tokens: 50000\n"
        "model:\n  name: openai/unknown-model\n",
        encoding="utf-8",
    )
    assert main(["--config", str(path), "config"]) == 0
    configured = capsys.readouterr().out.rsplit("# compaction for ", 1)[1]
    assert configured == (
        "openai/unknown-model: 6,144 tokens: 75% of the 8,192-token window "
        "(auto: windows under 512K compact at 75%)\n# Context window of openai/unknown-model "
        "is unknown; assuming 8192 tokens. Set model.context_window in the config.\n"
    )
    assert main(["--config", str(path), "--model", "openai/gpt-4o", "config"]) == 0
    out = capsys.readouterr().out
    assert "  name: openai/unknown-model\n" in out  # the settings shown are the file's
    assert out.rsplit("# compaction for ", 1)[1] == (
        "openai/gpt-4o: 50,000 tokens: 39% of the 128,000-token window (capped by compression.threshold_tokens; "
        "60% (compression.model_thresholds['gpt-4o']) would be 76,800)\n"
    )


def test_config_shows_what_confines_terminal_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hermeslite.tools.landlock import abi_version

    path = tmp_path / "mine.yaml"
    path.write_text("tools:\n  writable_paths: [~/.cache]\n", encoding="utf-8")
    assert main(["--config", str(path), "config"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    if abi_version():
        assert line.startswith(f"# sandbox: Landlock ABI {abi_version()} ")
        assert f"writes limited to {Path.cwd()}, " in line and str(Path("~/.cache").expanduser()) in line
    else:
        assert line.startswith("# sandbox: no Landlock sandbox on ")
    if abi_version():
        path.write_text("tools:\n  approval: allow\n", encoding="utf-8")
        assert main(["--config", str(path), "config"]) == 0
        assert "unused: tools.approval: allow" in capsys.readouterr().out.splitlines()[1]
    path.write_text("tools:\n  sandbox: off\n", encoding="utf-8")  # YAML reads a bare off as false
    assert main(["--config", str(path), "config"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("# sandbox: sandbox off (tools.sandbox: off)")


def test_config_error_is_one_message_and_exit_2(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = workdir / "hermeslite.yaml"
    path.write_text("compression:\n  threshold: [0.5\n", encoding="utf-8")
    assert main(["config"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"hermeslite: {path}: invalid YAML at line ")
    assert "Traceback" not in captured.err


def test_several_bad_values_all_reported(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "hermeslite.yaml").write_text("compression:\n  threshold: 5\n  max_passes: 0\n", encoding="utf-8")
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert "compression.threshold must be between 0.05 and 0.95" in err
    assert "compression.max_passes must be between 1 and 10" in err
    assert "Traceback" not in err


def test_missing_config_file_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", "missing.yaml", "config"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hermeslite: config file ") and "missing.yaml" in err
    assert "Traceback" not in err


def test_unknown_key_is_a_warning_on_stderr(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = workdir / "hermeslite.yaml"
    path.write_text("compression:\n  treshold: 0.4\n", encoding="utf-8")
    assert main(["config"]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"hermeslite: warning: {path}: unknown key compression.treshold (did you mean threshold?)\n"
    assert "  threshold: auto\n" in captured.out


def test_python_dash_m_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hermeslite", "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"hermeslite {__version__}\n"


def test_help_shows_the_subcommand_as_optional():
    """With no command hermeslite opens the chat: the usage line must not say one is required."""
    from hermeslite.cli import build_parser

    usage = " ".join(build_parser().format_usage().split())
    assert usage.endswith("[COMMAND ...]") and "] COMMAND ..." not in usage
