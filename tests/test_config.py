"""Config lookup, validation and the messages a user sees when a file is wrong."""

from __future__ import annotations

import re
import stat
from dataclasses import fields
from pathlib import Path

import pytest
import yaml
from platformdirs import PlatformDirs

from hermeslite import paths
from hermeslite.config import ConfigError, Settings, format_settings, load_settings
from hermeslite.context.settings import CompressionConfig
from hermeslite.tools.mcp.config import McpServerConfig
from tests.cli_process import hermeslite, model_args

EXAMPLE = Path(__file__).resolve().parent.parent / "config.example.yaml"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def threshold_file(path: Path, value: float) -> Path:
    return write(path, f"compression:\n  threshold: {value}\n")


def load_error(text: str, workdir: Path) -> tuple[str, Path]:
    """Write `text` as ./hermeslite.yaml and return the ConfigError message."""
    path = write(workdir / "hermeslite.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_settings()
    return str(info.value), path


# --- paths -------------------------------------------------------------------


def test_hermeslite_home_puts_every_dir_under_it(home: Path) -> None:
    assert paths.config_dir() == home / "config"
    assert paths.data_dir() == home / "data"
    assert paths.state_dir() == home / "state"
    assert paths.cache_dir() == home / "cache"
    assert not home.exists(), "asking for a directory must not create it"


def test_without_hermeslite_home_platform_dirs_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HERMESLITE_HOME")
    platform = PlatformDirs("hermeslite", appauthor=False)
    assert paths.config_dir() == platform.user_config_path
    assert paths.data_dir() == platform.user_data_path
    assert paths.state_dir() == platform.user_state_path
    assert paths.cache_dir() == platform.user_cache_path


def test_ensure_dir_creates_private_directory_once(home: Path) -> None:
    target = paths.ensure_dir(paths.data_dir() / "sessions")
    assert target.is_dir()
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    assert paths.ensure_dir(target) == target


# --- lookup order --------------------------------------------------------------


def test_no_file_anywhere_gives_defaults() -> None:
    loaded = load_settings()
    assert loaded.settings == Settings()
    assert loaded.source is None
    assert loaded.warnings == []


def test_user_config_dir_file_is_found(home: Path) -> None:
    path = threshold_file(home / "config" / "config.yaml", 0.6)
    loaded = load_settings()
    assert loaded.source == path
    assert loaded.settings.compression.threshold == 0.6


def test_project_file_in_cwd_is_found(workdir: Path) -> None:
    path = threshold_file(workdir / "hermeslite.yaml", 0.7)
    loaded = load_settings()
    assert loaded.source == path
    assert loaded.settings.compression.threshold == 0.7


def test_env_var_file_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = threshold_file(tmp_path / "env.yaml", 0.8)
    monkeypatch.setenv("HERMESLITE_CONFIG", str(path))
    loaded = load_settings()
    assert loaded.source == path
    assert loaded.settings.compression.threshold == 0.8


def test_cli_path_is_used(tmp_path: Path) -> None:
    path = threshold_file(tmp_path / "cli.yaml", 0.9)
    loaded = load_settings(str(path))
    assert loaded.source == path
    assert loaded.settings.compression.threshold == 0.9


def test_precedence_cli_then_env_then_project_then_user(
    tmp_path: Path, workdir: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = threshold_file(home / "config" / "config.yaml", 0.6)
    project = threshold_file(workdir / "hermeslite.yaml", 0.7)
    env = threshold_file(tmp_path / "env.yaml", 0.8)
    cli = threshold_file(tmp_path / "cli.yaml", 0.9)
    monkeypatch.setenv("HERMESLITE_CONFIG", str(env))
    assert load_settings(str(cli)).source == cli
    assert load_settings().source == env
    monkeypatch.delenv("HERMESLITE_CONFIG")
    assert load_settings().source == project
    project.unlink()
    assert load_settings().source == user


def test_empty_env_var_counts_as_unset(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = threshold_file(workdir / "hermeslite.yaml", 0.7)
    monkeypatch.setenv("HERMESLITE_CONFIG", "")
    assert load_settings().source == project


def test_cwd_argument_is_where_project_file_and_relative_paths_resolve(tmp_path: Path) -> None:
    other = tmp_path / "other"
    project = threshold_file(other / "hermeslite.yaml", 0.7)
    named = threshold_file(other / "named.yaml", 0.9)
    assert load_settings(cwd=other).source == project
    assert load_settings("named.yaml", cwd=other).source == named


def test_missing_cli_file_is_an_error_not_a_fallback(workdir: Path) -> None:
    threshold_file(workdir / "hermeslite.yaml", 0.7)
    with pytest.raises(ConfigError) as info:
        load_settings("nope.yaml")
    message = str(info.value)
    assert str(workdir / "nope.yaml") in message
    assert "--config" in message and "does not exist" in message


def test_missing_env_file_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMESLITE_CONFIG", str(tmp_path / "gone.yaml"))
    with pytest.raises(ConfigError, match=r"gone\.yaml \(from \$HERMESLITE_CONFIG\) does not exist"):
        load_settings()


# --- file contents -------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "compression:\n"])
def test_empty_file_or_empty_section_gives_defaults(workdir: Path, text: str) -> None:
    path = write(workdir / "hermeslite.yaml", text)
    loaded = load_settings()
    assert loaded.settings == Settings()
    assert loaded.source == path
    assert loaded.warnings == []


def test_partial_section_keeps_other_defaults(workdir: Path) -> None:
    write(workdir / "hermeslite.yaml", "compression:\n  max_passes: 5\n  summary_timeout: 30\n")
    compression = load_settings().settings.compression
    assert compression == CompressionConfig(max_passes=5, summary_timeout=30)


def test_invalid_yaml_names_file_line_column_and_problem(workdir: Path) -> None:
    message, path = load_error("compression:\n  threshold: 0.5\n  enabled: true: false\n", workdir)
    assert message.startswith(str(path))
    assert "line 3, column 16" in message
    assert "mapping values are not allowed here" in message
    assert "Traceback" not in message and "\n" not in message


def test_top_level_not_a_mapping_is_an_error(workdir: Path) -> None:
    message, path = load_error("- compression\n- threshold\n", workdir)
    assert message == f"{path}: the top level must be a mapping of sections such as `compression:`, got a list"


def test_section_not_a_mapping_is_an_error(workdir: Path) -> None:
    message, path = load_error("compression: 0.5\n", workdir)
    assert message == f"{path}: compression must be a mapping of keys, got a number"


def test_unknown_top_level_key_warns_with_suggestion(workdir: Path) -> None:
    path = write(workdir / "hermeslite.yaml", "compresion:\n  threshold: 0.4\n")
    loaded = load_settings()
    assert loaded.warnings == [f"{path}: unknown key compresion (did you mean compression?)"]
    assert loaded.settings == Settings()


def test_unknown_nested_key_warns_with_dotted_name_and_suggestion(workdir: Path) -> None:
    path = write(workdir / "hermeslite.yaml", "compression:\n  treshold: 0.4\n  max_passes: 4\n")
    loaded = load_settings()
    assert loaded.warnings == [f"{path}: unknown key compression.treshold (did you mean threshold?)"]
    assert loaded.settings.compression.threshold == "auto"
    assert loaded.settings.compression.max_passes == 4


def test_unknown_key_without_close_match_has_no_suggestion(workdir: Path) -> None:
    write(workdir / "hermeslite.yaml", "compression:\n  zzz: 1\n")
    [warning] = load_settings().warnings
    assert warning.endswith("unknown key compression.zzz")


def test_all_bad_values_reported_at_once_with_key_and_range(workdir: Path) -> None:
    text = (
        "compression:\n"
        "  threshold: 2\n"
        "  enabled: yes please\n"
        "  max_passes: 2.5\n"
        "  never_prune_tools: memory\n"
        "  context_length: 100\n"
        "  warn_at: 0.9\n"
    )
    message, path = load_error(text, workdir)
    header, *lines = message.splitlines()
    assert header == f"{path}: 5 problems:"
    assert lines == [
        "  compression.enabled must be true or false, got 'yes please'",
        "  compression.threshold must be between 0.05 and 0.95, got 2",
        "  compression.max_passes must be a whole number, got 2.5",
        "  compression.never_prune_tools must be a list of tool names, got 'memory'",
        "  compression.context_length must be between 512 and 100,000,000, got 100",
    ]


def test_single_bad_value_is_one_line(workdir: Path) -> None:
    message, path = load_error("compression:\n  summary_timeout: 0\n", workdir)
    assert message == f"{path}: compression.summary_timeout must be between 1 and 3600, got 0"


@pytest.mark.parametrize("value", ["localhost:8080/v1", "ftp://example.com", "http://", "'http://[::1'"])
def test_api_base_must_be_a_web_url(workdir: Path, value: str) -> None:
    message, path = load_error(f"model:\n  api_base: {value}\n", workdir)
    shown = value.strip("'")
    assert message == f"{path}: model.api_base must be an http:// or https:// URL or null, got {shown!r}"


def test_api_base_takes_http_and_https(workdir: Path) -> None:
    for url in ("http://127.0.0.1:8080/v1", "https://llm.example.com"):
        write(workdir / "named.yaml", f"model:\n  api_base: {url}\n")  # named: a guarded key needs no trust
        assert load_settings("named.yaml").settings.model.api_base == url


def test_nan_is_out_of_range(workdir: Path) -> None:
    message, _ = load_error("compression:\n  threshold: .nan\n", workdir)
    assert "compression.threshold must be between 0.05 and 0.95, got nan" in message


@pytest.mark.parametrize("value, expected", [("auto", "auto"), ("4000", 4000), ("4000.0", 4000)])
def test_prune_protect_tokens_accepts_auto_or_whole_number(workdir: Path, value: str, expected: object) -> None:
    write(workdir / "hermeslite.yaml", f"compression:\n  prune_protect_tokens: {value}\n")
    actual = load_settings().settings.compression.prune_protect_tokens
    assert actual == expected and type(actual) is type(expected)


def test_prune_protect_tokens_rejects_other_words(workdir: Path) -> None:
    message, _ = load_error("compression:\n  prune_protect_tokens: automatic\n", workdir)
    assert "compression.prune_protect_tokens must be a whole number or auto, got 'automatic'" in message


# --- rendering and the example file -------------------------------------------------


def test_format_settings_round_trips(workdir: Path) -> None:
    settings = Settings(compression=CompressionConfig(threshold=0.6, never_prune_tools=["todo"], context_length=8192))
    write(workdir / "hermeslite.yaml", format_settings(settings))
    loaded = load_settings()
    assert loaded.settings == settings
    assert loaded.warnings == []


def test_format_settings_is_block_yaml_of_every_key() -> None:
    rendered = yaml.safe_load(format_settings(Settings()))
    assert list(rendered) == [f.name for f in fields(Settings)]
    assert list(rendered["compression"]) == [f.name for f in fields(CompressionConfig)]


def test_example_file_loads_to_the_defaults() -> None:
    loaded = load_settings(str(EXAMPLE))
    assert loaded.settings == Settings()
    assert loaded.warnings == []


def test_example_file_documents_every_key_with_a_comment() -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    for section in fields(Settings):
        start = _assert_commented(lines, section.name, indent="")
        if section.name == "mcp_servers":  # entries named by the user: see the test below
            continue
        end = next((i for i in range(start + 1, len(lines)) if re.match(r"\S", lines[i])), len(lines))
        block = lines[start:end]  # a key name may be used in two sections (enabled)
        for key in fields(section.default_factory):  # type: ignore[arg-type]
            _assert_commented(block, key.name, indent="  ")


def test_example_file_shows_every_mcp_server_key_commented_out_in_an_entry_that_loads() -> None:
    """The example's servers are commented out (the file loads to the defaults); uncommented,
    they load without a warning, and every key of a server appears once with a comment above."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    start = lines.index("mcp_servers: {}")
    block = [line.removeprefix("#") for line in lines[start + 1 :] if line.startswith("#  ")]
    for key in fields(McpServerConfig):
        _assert_commented(block, key.name, indent="    ")
    write(paths.config_dir() / "config.yaml", "mcp_servers:\n" + "\n".join(block) + "\n")
    loaded = load_settings()
    assert sorted(loaded.settings.mcp_servers) == ["docs", "github"]
    assert loaded.warnings == []


def _assert_commented(lines: list[str], key: str, indent: str) -> int:
    """`key` is set on exactly one line, and the line above it is a non-empty comment; returns that line."""
    at = [i for i, line in enumerate(lines) if re.match(rf"{indent}{key}:", line)]
    assert len(at) == 1, f"{key} must appear once in config.example.yaml"
    above = lines[at[0] - 1]
    assert re.fullmatch(rf"{indent}# \S.*", above), f"{key} needs a one-line comment above it, found {above!r}"
    return at[0]


# --- duplicated keys ---------------------------------------------------------------


def test_a_duplicated_section_warns_with_file_and_lines(workdir: Path) -> None:
    path = write(
        workdir / "hermeslite.yaml",
        "model:\n  context_window: 4096\ncompression:\n  threshold: 0.6\nmodel:\n  context_window: 8192\n",
    )
    loaded = load_settings()
    assert loaded.warnings == [f"{path}: model appears twice (lines 1 and 5); only the last one is used"]
    assert loaded.settings.model.context_window == 8192 and loaded.settings.compression.threshold == 0.6


def test_a_duplicated_key_inside_a_section_warns_with_its_dotted_name(workdir: Path) -> None:
    path = write(
        workdir / "hermeslite.yaml",
        "compression:\n  threshold: 0.6\n  max_passes: 2\n  threshold: 0.7\n  threshold: 0.8\n",
    )
    loaded = load_settings()
    assert loaded.warnings == [
        f"{path}: compression.threshold appears 3 times (lines 2, 4 and 5); only the last one is used"
    ]
    assert loaded.settings.compression.threshold == 0.8


def test_equal_keys_in_different_sections_are_not_duplicates(workdir: Path) -> None:
    write(workdir / "hermeslite.yaml", "compression:\n  note: a\nmemory:\n  note: b\n")
    warnings = load_settings().warnings
    assert len(warnings) == 2 and all("unknown key" in w and "appears" not in w for w in warnings)


def alias_bomb(levels: int) -> str:
    """`levels` lines of ten aliases each: 10**levels values in a file of a few hundred bytes."""
    lines = ["a0: &a0 [" + ", ".join(["lol"] * 10) + "]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, levels)]
    return "\n".join([*lines, f"compression:\n  threshold: *a{levels - 1}\n"])


@pytest.mark.parametrize("where", ["project", "user", "cli"])
def test_an_alias_bomb_is_refused_in_one_line_before_validation(
    where: str, workdir: Path, home: Path, tmp_path: Path
) -> None:
    """An untrusted ./hermeslite.yaml, the user config and --config alike; validating 10**6 values
    used to quote them all in the error."""
    target = {
        "project": workdir / "hermeslite.yaml",
        "user": home / "config" / "config.yaml",
        "cli": tmp_path / "c.yaml",
    }
    path = write(target[where], alias_bomb(6))
    with pytest.raises(ConfigError) as info:
        load_settings(str(path) if where == "cli" else None)
    assert str(info.value) == (
        f"{path}: it stands for more than 10,000 values once its YAML aliases are expanded; "
        "hermeslite's settings need a few dozen, so it is not read"
    )


def test_aliases_within_bounds_still_work(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "x-paths: &p [~/.cache]\ntools:\n  writable_paths: *p\n  readable_paths: *p\n")
    loaded = load_settings(str(path)).settings.tools
    assert loaded.writable_paths == loaded.readable_paths == ["~/.cache"]


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: &a [*a]\n", "invalid YAML: the value at line 1 contains itself (an alias)"),
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "invalid YAML: nested too deeply"),
    ],
)
def test_a_file_that_contains_itself_or_nests_without_end_is_one_line(workdir: Path, text: str, problem: str) -> None:
    message, path = load_error(text, workdir)
    assert message == f"{path}: {problem}"


def test_a_billion_value_bomb_in_an_untrusted_project_ends_the_run_at_once(
    scripted_server, workdir: Path, home: Path
) -> None:
    write(workdir / "hermeslite.yaml", alias_bomb(9))
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], home, workdir)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "it stands for more than 10,000 values" in done.stderr and scripted_server.requests == []


# --- tools.web_fetch, a section inside tools ------------------------------------------


def test_web_fetch_keys_load_into_their_section() -> None:
    write(paths.config_dir() / "config.yaml", "tools:\n  web_fetch:\n    timeout: 5\n    domains: [docs.python.org]\n")
    web = load_settings().settings.tools.web_fetch
    assert (web.timeout, web.domains, web.allow_private, web.max_redirects) == (5, ["docs.python.org"], False, 5)


def test_web_fetch_bad_keys_and_values_are_one_line_each(workdir: Path) -> None:
    message, path = load_error("tools:\n  web_fetch:\n    timout: 5\n    max_redirects: 99\n", workdir)
    assert "tools.web_fetch.timout is not a key of web_fetch (keys: allow_private, domains," in message
    assert "tools.web_fetch.max_redirects must be between 0 and 20, got 99" in message
    message, _ = load_error("tools:\n  web_fetch: yes\n", workdir)
    assert message == f"{path}: tools.web_fetch must be a mapping of keys, got bool"


def test_web_fetch_round_trips_through_format_settings() -> None:
    user_file = paths.config_dir() / "config.yaml"  # the user's own file: a project file's web_fetch needs trust
    write(user_file, "tools:\n  web_fetch:\n    allow_private: true\n")
    settings = load_settings().settings
    write(user_file, format_settings(settings))
    assert load_settings().settings == settings and settings.tools.web_fetch.allow_private
