"""The `mcp_servers:` block: what a server entry may say, the names tools get, `${NAME}` values, and
editing one entry of a file by hand-preserving text edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.config import ConfigError, Settings, format_settings, load_settings
from hermeslite.config_edit import EditError, add_entry, remove_entry
from hermeslite.mcp_cli import split_program
from hermeslite.tools.mcp.config import McpServerConfig, MissingVariable, expand, parse_servers
from hermeslite.tools.mcp.names import MAX_NAME, tool_name


def problems(raw: object) -> str:
    with pytest.raises(ConfigError) as info:
        parse_servers(raw, Path("c.yaml"), [])
    return str(info.value)


def test_entries_are_checked_and_every_problem_named() -> None:
    assert problems(["a"]) == "c.yaml: mcp_servers must be a mapping of server names to settings, got a list"
    message = problems(
        {
            "ok": {"command": "x"},
            "bad name!": {"command": "x"},
            "a__b": {"command": "x"},
            "both": {"command": "x", "url": "https://e.example"},
            "neither": {"args": ["-v"]},
            "stray": {"url": "https://e.example", "env": {"A": "b"}},
            "scalar": "npx server",
            "typed": {"command": "x", "startup_timeout": "soon"},
        }
    )
    assert message.splitlines() == [
        "c.yaml: 7 problems:",
        "  mcp_servers.bad name!: a server name is 1 to 32 letters, digits, - or _ (no __), starting with a letter or digit",
        "  mcp_servers.a__b: a server name is 1 to 32 letters, digits, - or _ (no __), starting with a letter or digit",
        "  mcp_servers.both: give either command: (a program spoken to over stdio) or url: (streamable HTTP), not both",
        "  mcp_servers.neither: give either command: (a program spoken to over stdio) or url: (streamable HTTP), not both",
        "  mcp_servers.stray: env does not apply to an HTTP server",
        "  mcp_servers.scalar must be a mapping of keys such as command: or url:, got a string",
        "  mcp_servers.typed.startup_timeout must be a number, got 'soon'",
    ]


def test_yaml_numbers_in_env_and_args_are_text_and_unknown_keys_warn() -> None:
    warnings: list[str] = []
    servers = parse_servers(
        {"s": {"command": "x", "args": [8080, True], "env": {"PORT": 8080, "DEBUG": False}, "envv": {}}},
        Path("c.yaml"),
        warnings,
    )
    assert servers["s"].args == ["8080", "true"] and servers["s"].env == {"PORT": "8080", "DEBUG": "false"}
    assert warnings == ["c.yaml: unknown key mcp_servers.s.envv (did you mean env?)"]


def test_the_effective_settings_print_and_load_back_with_servers(workdir: Path) -> None:
    servers = {
        "gh": McpServerConfig(command="npx", args=["-y", "pkg"], env={"T": "${TOKEN}"}, approved_tools=["get_*"])
    }
    settings = Settings(mcp_servers=servers)
    (workdir / "named.yaml").write_text(format_settings(settings))
    assert load_settings("named.yaml").settings == settings


def test_variables_are_expanded_with_defaults_and_a_missing_one_is_named_without_values() -> None:
    env = {"TOKEN": "abc", "EMPTY": ""}
    assert expand("Bearer ${TOKEN}", "h", env) == "Bearer abc"
    assert expand("${EMPTY:-fallback}/${UNSET:-x}", "h", env) == "fallback/x"
    assert expand("$TOKEN and ${ not a name }", "h", env) == "$TOKEN and ${ not a name }"
    with pytest.raises(MissingVariable, match=r"^mcp_servers\.s\.headers\.A uses \$\{UNSET\}, which is not set"):
        expand("${TOKEN}${UNSET}", "mcp_servers.s.headers.A", env)


def test_globs_choose_offered_approved_and_read_only_tools() -> None:
    server = McpServerConfig(
        command="x", tools=["get_*", "list_*", "delete_repo"], exclude_tools=["*_secret"], approved_tools=["get_*"]
    )
    assert [t for t in ("get_issue", "get_secret", "list_prs", "delete_repo", "push") if server.offers(t)] == [
        "get_issue",
        "list_prs",
        "delete_repo",
    ]
    assert server.approved("get_issue") and not server.approved("list_prs") and not server.read_only("get_issue")


def test_tool_names_fit_what_providers_accept() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("db", "query.run v2") == "mcp__db__query_run_v2"
    long_a, long_b = tool_name("srv", "x" * 80 + "a"), tool_name("srv", "x" * 80 + "b")
    assert len(long_a) == MAX_NAME and long_a != long_b and long_a.startswith("mcp__srv__xxx")


def test_an_entry_added_to_a_flow_or_empty_section_and_removed_again() -> None:
    entry = {"command": "npx"}
    flow = "mcp_servers: {old: {command: x}}  # servers\nagent: {max_iterations: 3}\n"
    added = add_entry(flow, "mcp_servers", "new", entry)
    assert added == "mcp_servers:\n  old: {command: x}\n  new: {command: npx}\nagent: {max_iterations: 3}\n"
    assert remove_entry(remove_entry(added, "mcp_servers", "new"), "mcp_servers", "old") == (
        "mcp_servers: {}\nagent: {max_iterations: 3}\n"
    )
    empty = "mcp_servers:\nagent: {}"
    assert add_entry(empty, "mcp_servers", "new", entry) == "mcp_servers:\n  new: {command: npx}\nagent: {}"
    indented = "mcp_servers:\n    old:\n        command: x\n# after\n"
    assert add_entry(indented, "mcp_servers", "new", entry) == (
        "mcp_servers:\n    old:\n        command: x\n    new: {command: npx}\n# after\n"
    )
    with pytest.raises(EditError, match="mcp_servers is not a mapping"):
        add_entry("mcp_servers: [a]\n", "mcp_servers", "new", entry)
    with pytest.raises(EditError, match="not valid YAML"):
        add_entry("mcp_servers: {\n", "mcp_servers", "new", entry)


def test_the_program_after_dashes_is_split_off_only_for_mcp_add() -> None:
    assert split_program(["mcp", "add", "gh", "-e", "A=b", "--", "npx", "-y", "--flag"]) == (
        ["mcp", "add", "gh", "-e", "A=b"],
        ["npx", "-y", "--flag"],
    )
    assert split_program(["--config", "c.yaml", "mcp", "add", "x", "--", "y"]) == (
        ["--config", "c.yaml", "mcp", "add", "x"],
        ["y"],
    )
    assert split_program(["-p", "hi", "--", "x"]) == (["-p", "hi", "--", "x"], None)
