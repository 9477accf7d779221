"""`hermeslite mcp list|add|remove`: show the configured MCP servers, add or remove one.

`add` and `remove` edit one entry of `mcp_servers:` in the user config file
(or the file `--config` or $HERMESLITE_CONFIG names), leaving the rest of it
as it was, comments included (see config_edit.py), and write it only when the
whole file still loads. Values keep `${NAME}` as typed, so a token stays in
the environment:

    hermeslite mcp add github -e 'GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN}' \\
        -- npx -y @modelcontextprotocol/server-github
    hermeslite mcp add docs --url https://mcp.example.com/mcp -H 'Authorization: Bearer ${DOCS_TOKEN}'
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermeslite.config import (
    CONFIG_ENV,
    PROJECT_FILE,
    USER_FILE,
    ConfigError,
    LoadedSettings,
    settings_from_bytes,
)
from hermeslite.config_edit import EditError, add_entry, remove_entry
from hermeslite.display import neutralize
from hermeslite.errors import UsageError, UserFacingError
from hermeslite.paths import config_dir, ensure_dir
from hermeslite.tools.mcp.config import SECTION, VARIABLE_RE

AddConfigOption = Callable[[argparse.ArgumentParser], None]


def add_parser(commands: Any, add_config_option: AddConfigOption) -> None:
    """The `mcp` command and its actions, under the top-level `commands`."""
    mcp = commands.add_parser(
        "mcp",
        help="list, add or remove MCP servers",
        description="Show the MCP servers configured, or add or remove one in your config file "
        f"(the file --config or ${CONFIG_ENV} names, else {USER_FILE} in the user config directory).",
        allow_abbrev=False,
    )
    add_config_option(mcp)
    actions = mcp.add_subparsers(title="actions", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the servers the settings in use configure", allow_abbrev=False)
    listing.set_defaults(run=run_list, uses_settings=True)
    add = actions.add_parser(
        "add",
        help="add a server: NAME -- COMMAND [ARGS...] (stdio), or NAME --url URL (streamable HTTP)",
        description="Add an MCP server. Values may say ${NAME} to take an environment variable when "
        "the server starts (quote them for the shell), so no token is written into the file.",
        allow_abbrev=False,
    )
    add.add_argument("name", help="the server's name: letters, digits, - and _")
    add.add_argument("--url", help="a streamable HTTP server's endpoint")
    add.add_argument(
        "-e", "--env", action="append", default=[], metavar="NAME=VALUE", help="an environment variable (stdio)"
    )
    add.add_argument(
        "-H", "--header", action="append", default=[], metavar="'NAME: VALUE'", help="a request header (HTTP)"
    )
    add.add_argument("--cwd", help="the directory a stdio server runs in (default: where hermeslite runs)")
    add.add_argument(
        "--approve", action="append", default=[], metavar="TOOL", help="a tool (or glob) that runs without asking"
    )
    add.add_argument("--disabled", action="store_true", help="add it with enabled: false")
    add.add_argument("command", nargs="*", help="after --: the program and its arguments (stdio)")
    # (the words after `--` are split off before parsing: see split_program)
    add.set_defaults(run=run_add, uses_settings=False)
    remove = actions.add_parser("remove", help="remove the server NAME", allow_abbrev=False)
    remove.add_argument("name")
    remove.set_defaults(run=run_remove, uses_settings=False)


def split_program(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """`... mcp add NAME [options] -- PROGRAM ARGS...` split at the `--`: argparse cannot pass a `--`
    through to a subcommand's subcommand, and PROGRAM's own flags (`npx -y`) must not be read as ours."""
    if "--" not in argv:
        return argv, None
    cut = argv.index("--")
    head = argv[:cut]
    if "mcp" not in head or "add" not in head[head.index("mcp") :]:
        return argv, None
    return head, argv[cut + 1 :]


def run_list(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    servers = loaded.settings.mcp_servers
    if loaded.source is None or not servers:
        where = f" in {loaded.source}" if loaded.source is not None else ""
        print(f"No MCP servers configured{where}; `hermeslite mcp add NAME -- COMMAND [ARGS...]` adds one.")
        return 0
    both = f" and {loaded.base}" if loaded.base is not None else ""
    print(neutralize(f"MCP servers in {loaded.source}{both}:"))
    width = max(len(name) for name in servers) + 2
    for name, server in servers.items():
        state = "" if server.enabled else "  (disabled)"
        print(neutralize(f"  {name:<{width}}{server.transport:<7}{server.target}{state}"))
    print("/mcp in a chat shows whether they run, their tools and what those cost in tokens.")
    return 0


def run_add(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    path = target_file(args)
    entry = _entry(args)
    text = _read(path)
    try:
        new = add_entry(text, SECTION, args.name, entry)
    except EditError as exc:
        raise UserFacingError(f"cannot add {args.name} to {path}: {exc}") from None
    _write_checked(path, new)
    print(neutralize(f"added MCP server {args.name} to {path}"))
    _notes(path, entry)
    return 0


def run_remove(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    path = target_file(args)
    if not path.is_file():
        raise UserFacingError(f"cannot remove {args.name}: {path} does not exist")
    try:
        new = remove_entry(_read(path), SECTION, args.name)
    except EditError as exc:
        raise UserFacingError(f"cannot remove {args.name} from {path}: {exc}") from None
    _write_checked(path, new)
    print(neutralize(f"removed MCP server {args.name} from {path}"))
    return 0


def target_file(args: argparse.Namespace) -> Path:
    """The file `add` and `remove` edit: the one named by --config or $HERMESLITE_CONFIG, else the user's."""
    named = args.config or os.environ.get(CONFIG_ENV) or None
    return (Path.cwd() / Path(named).expanduser()) if named else config_dir() / USER_FILE


def _entry(args: argparse.Namespace) -> dict[str, Any]:
    command = list(args.command)
    if command and args.url:
        raise UsageError("a server has a program (after --) or a --url, not both")
    if not command and not args.url:
        raise UsageError("give the server's program after -- (stdio), or --url URL (streamable HTTP)")
    entry: dict[str, Any] = {"url": args.url} if args.url else {"command": command[0]}
    if command[1:]:
        entry["args"] = command[1:]
    if args.env:
        entry["env"] = dict(_pair(item, "=", "--env NAME=VALUE") for item in args.env)
    if args.header:
        entry["headers"] = dict(_pair(item, ":", "--header 'NAME: VALUE'") for item in args.header)
    if args.cwd:
        entry["cwd"] = args.cwd
    if args.approve:
        entry["approved_tools"] = list(args.approve)
    if args.disabled:
        entry["enabled"] = False
    return entry


def _pair(item: str, separator: str, form: str) -> tuple[str, str]:
    name, found, value = item.partition(separator)
    if not found or not name.strip():
        raise UsageError(f"{item!r} is not of the form {form}")
    return name.strip(), value.strip()


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise UserFacingError(f"cannot read {path}: {exc}") from None


def _write_checked(path: Path, text: str) -> None:
    """Write `text` to `path` (through a temporary file and a rename) if it loads as a config."""
    try:
        settings_from_bytes(path, text.encode("utf-8"))
    except ConfigError as exc:
        raise UserFacingError(f"{exc} (nothing was written)") from None
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600  # it may come to hold a header's token
    temporary = path.with_name(path.name + ".tmp")
    try:
        ensure_dir(path.parent)
        temporary.write_text(text, encoding="utf-8")
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as exc:
        raise UserFacingError(f"cannot write {path}: {exc.strerror or exc}") from None


def _notes(path: Path, entry: dict[str, Any]) -> None:
    """What would keep the new server from starting here: a project file read instead of this one,
    a variable it names that this shell does not set."""
    project = Path.cwd() / PROJECT_FILE
    if project.is_file() and project.resolve() != path.resolve():
        print(f"note: in this folder ./{PROJECT_FILE} is read instead of {path}, so the server is not used here")
    values = [str(value) for value in entry.values() if isinstance(value, str)]
    values += [str(v) for key in ("args", "env", "headers") for v in _values(entry.get(key))]
    missing = sorted({m.group(1) for v in values for m in VARIABLE_RE.finditer(v) if not os.environ.get(m.group(1))})
    if missing:
        print(f"note: {', '.join(missing)} is not set in this shell; the server fails to start until it is")


def _values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    return list(value) if isinstance(value, list) else []
