"""The `hermeslite` command: parse arguments, load settings, run one command.

Every command is a function `(args, loaded) -> exit code` attached to its
subparser with `set_defaults(run=...)`, so `main` never grows: the chat loop
becomes the `run` for "no subcommand", and options such as -p, --model,
--continue, --resume and a `sessions` command are added in `build_parser`.
This is the only module that prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from hermeslite import __version__
from hermeslite.config import ConfigError, LoadedSettings, default_config_paths, format_settings, load_settings

PROG = "hermeslite"
EXIT_USAGE = 2

Command = Callable[[argparse.Namespace, LoadedSettings], int]


def build_parser() -> argparse.ArgumentParser:
    """All options and commands; `run` is None when no command was given."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="A terminal chat agent whose context compression never loses the thread."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _add_config_option(parser, default=None)
    parser.set_defaults(run=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    config = commands.add_parser(
        "config", help="show which config file is used and the effective settings",
        description="Print where the settings come from and their effective values, as YAML.",
    )
    _add_config_option(config, default=argparse.SUPPRESS)
    config.set_defaults(run=_run_config)
    return parser


def _add_config_option(parser: argparse.ArgumentParser, *, default: object) -> None:
    """`--config` before or after the command; SUPPRESS on subparsers keeps them from erasing the top-level value."""
    parser.add_argument(
        "--config", metavar="FILE", default=default,
        help="read settings from FILE (default: $HERMESLITE_CONFIG, else ./hermeslite.yaml, "
        "else config.yaml in the user config directory)",
    )


def main(argv: list[str] | None = None) -> int:
    """Run hermeslite and return the exit code, rather than exiting, so tests can call it."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors end argparse this way
        return exc.code if isinstance(exc.code, int) else 0
    if args.run is None:
        parser.print_help()
        return 0
    try:
        loaded = load_settings(args.config)
    except ConfigError as exc:
        _complain(str(exc))
        return EXIT_USAGE
    for warning in loaded.warnings:
        _complain(f"warning: {warning}")
    return args.run(args, loaded)


def _complain(message: str) -> None:
    """Errors and warnings go to stderr with the program name, as Unix tools do."""
    print(f"{PROG}: {message}", file=sys.stderr)


def _run_config(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    """Print the source as a comment, then the settings, so the output can be saved as a config file."""
    if loaded.source is None:
        looked = " or ".join(str(path) for path in default_config_paths())
        print(f"# no config file found (looked for {looked}); using built-in defaults")
    else:
        print(f"# settings from {loaded.source}")
    print(format_settings(loaded.settings), end="")
    return 0
