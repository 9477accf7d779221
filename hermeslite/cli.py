"""The `hermeslite` command: parse arguments, load settings, run one command.

Every command is a function `(args, loaded) -> exit code` attached with
`set_defaults(run=...)`, so `main` stays short: chatting (one prompt with -p,
or an interactive chat) is the default command, `config`, `sessions`,
`trust` (config_cli.py) and `mcp` (mcp_cli.py) are subcommands. Errors reach the user as one line on stderr, never a traceback;
an unexpected one (a bug) too, naming where the open session stands, with the
traceback only under `--verbose`.
When the reader of our output goes away (`hermeslite -p ... | head`), the
program stops quietly, as Unix tools do.
"""

from __future__ import annotations

import argparse
import atexit
import os
import signal
import sys
import traceback
from collections.abc import Callable
from functools import partial
from typing import NoReturn

from hermeslite import __version__, config_cli, export_cli, mcp_cli
from hermeslite.config import (
    PROJECT_FILE,
    ConfigError,
    LoadedSettings,
    Settings,
    load_settings,
)
from hermeslite.context.fieldspec import is_web_url
from hermeslite.display import neutralize
from hermeslite.errors import EXIT_INTERRUPTED, Unexpected, UsageError, UserFacingError
from hermeslite.prompt_input import read_prompt, stdin_is_piped

PROG = "hermeslite"
EXIT_USAGE = 2
EXIT_READER_GONE = 128 + signal.SIGPIPE  # 141: what a shell reports for a tool that SIGPIPE ended
MAX_DETAIL = 300  # characters of an unexpected error's message in its one line

Command = Callable[[argparse.Namespace, LoadedSettings], int]


def _web_url(text: str) -> str:
    """`--api-base` checked as the config key is, so a typo is a usage error now, not a failed request later."""
    if not is_web_url(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an http:// or https:// URL (e.g. http://127.0.0.1:8080/v1)")
    return text


def build_parser() -> argparse.ArgumentParser:
    """All options and commands; `run` is None when no command was given."""
    # No prefix matching: `--mod` must not silently mean `--model` (nor a future `--mode`).
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="A terminal chat agent whose context compression never loses the thread.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _add_config_option(parser, default=None)
    parser.add_argument(
        "-p",
        "--prompt",
        metavar="TEXT",
        help="answer one prompt and exit: the reply on stdout, tool activity on stderr; text piped "
        "into stdin is added after the prompt, and `-p -` reads the whole prompt from stdin",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="with -p: text (the reply, as today), json (one object at the end) or stream-json (one JSON "
        "object a line as the run goes); see docs/output-format.md",
    )
    parser.add_argument(
        "--include-partial",
        action="store_true",
        help="with --output-format stream-json: also the reply's text as it streams, as stream_event deltas",
    )
    parser.add_argument("--model", metavar="NAME", help="litellm model string, overriding model.name")
    parser.add_argument(
        "--mode",
        choices=("default", "accept-edits", "plan"),
        help="start in this mode (also with -p): plan is read-only, enforced by the kernel sandbox; "
        "accept-edits runs file edits without asking; without it, a continued session keeps its own",
    )
    parser.add_argument(
        "--api-base", metavar="URL", type=_web_url, help="OpenAI-compatible server URL, overriding model.api_base"
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="without the TUI: also print how prompt caching applies at start, and the session's "
        "token use, cache hits and cost at the end (on stderr)",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "-c", "--continue", dest="continue_latest", action="store_true", help="continue the most recent session"
    )
    which.add_argument("--resume", metavar="ID", help="continue the session with this id (or a unique prefix)")
    parser.set_defaults(run=_run_chat, uses_settings=True)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    settings_commands: tuple[tuple[str, Command, str, str], ...] = (
        (
            "config",
            config_cli.run_config,
            "show which config file is used and the effective settings",
            "Print where the settings come from and their effective values, as YAML.",
        ),
        (
            "sessions",
            _run_sessions,
            "list saved sessions, newest first",
            "List saved sessions: id, last activity, messages, context tokens, model, title, handed off from.",
        ),
    )
    for name, run, summary, description in settings_commands:
        command = commands.add_parser(name, help=summary, description=description, allow_abbrev=False)
        _add_config_option(command, default=argparse.SUPPRESS)
        command.set_defaults(run=run)
    trust = commands.add_parser(
        "trust",
        allow_abbrev=False,
        help=f"let ./{PROJECT_FILE} choose the model, endpoint, key and tool permissions, and run its hooks",
        description=f"Trust ./{PROJECT_FILE} as it is now. Until then, the keys in it that choose where "
        "the conversation and your key go, or let tools do more without asking, are ignored, and its hooks do not run. "
        "A changed file needs trusting again.",
    )
    trust.add_argument("--revoke", action="store_true", help=f"stop trusting ./{PROJECT_FILE}")
    trust.set_defaults(run=config_cli.run_trust, uses_settings=False)  # it reads ./hermeslite.yaml itself
    mcp_cli.add_parser(commands, partial(_add_config_option, default=argparse.SUPPRESS))
    export_cli.add_parser(commands, partial(_add_config_option, default=argparse.SUPPRESS))
    setup = commands.add_parser(
        "setup",
        allow_abbrev=False,
        help="choose a provider and model, check the key with one request, write a minimal config",
        description="Choose a provider (OpenAI, Anthropic, OpenRouter, Gemini, Ollama, an OpenAI-compatible "
        "server, or the embedded model), check it with one short request, and write the model section of your "
        "config.yaml (or the file --config names). The key is written only with --save-key or when you say so; "
        "otherwise the config names the variable that holds it.",
    )
    _add_config_option(setup, default=argparse.SUPPRESS)
    from hermeslite.setup_command import add_arguments

    add_arguments(setup)
    setup.set_defaults(run=_run_setup, uses_settings=False)  # a broken config must not stop its repair
    # argparse draws a subcommand as required (`COMMAND ...`); with none, hermeslite opens the chat.
    parser.usage = parser.format_usage().removeprefix("usage: ").replace("COMMAND ...", "[COMMAND ...]").rstrip()
    return parser


def _add_config_option(parser: argparse.ArgumentParser, *, default: object) -> None:
    """`--config` before or after the command; SUPPRESS on subparsers keeps them from erasing the top-level value."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=default,
        help="read settings from FILE (default: $HERMESLITE_CONFIG, else ./hermeslite.yaml, "
        "else config.yaml in the user config directory)",
    )


def run() -> NoReturn:
    """The `hermeslite` command: `main`, then an exit that skips tearing the interpreter down.

    Python's own exit frees every module and object one by one; with litellm
    loaded that took 1.4 s of CPU after the answer was already out (a third of
    a `-p` run). Nothing is lost by skipping it: by the time `main` returns
    the session store is closed (every message committed, the WAL
    checkpointed, the session's lock file removed), what remains is flushed
    here, and the exit handlers still run (tool processes are killed, the
    embedded model is freed). Only the freeing of memory the kernel reclaims
    anyway is skipped.
    """
    code = main()
    code = _flush_or_gone(code)
    atexit._run_exitfuncs()  # the handlers `sys.exit` would run (CPython has no public name for it)
    os._exit(_flush_or_gone(code))


def _flush_or_gone(code: int) -> int:
    """Flush stdout and stderr; a reader that went away makes the exit quiet, with its status."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        return _reader_gone()
    return code


def main(argv: list[str] | None = None) -> int:
    """Run hermeslite and return the exit code, rather than exiting, so tests can call it."""
    _ensure_standard_streams()
    try:
        return _main(argv)
    except BrokenPipeError:
        return _reader_gone()


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    try:
        argv, program = mcp_cli.split_program(sys.argv[1:] if argv is None else argv)
        args = parser.parse_args(argv)
        if program is not None:
            args.command = program
        chat_only = args.prompt is not None or args.continue_latest or args.resume is not None or args.mode
        if args.run is not _run_chat and chat_only:
            # `hermeslite -p TEXT sessions` would otherwise list sessions and drop the prompt unsaid.
            parser.error("-p, --continue, --resume and --mode start a chat; they do not go with a command")
        if args.output_format != "text" and args.prompt is None:
            parser.error(f"--output-format {args.output_format} goes with -p")
        if args.include_partial and args.output_format != "stream-json":
            parser.error("--include-partial goes with --output-format stream-json")
    except SystemExit as exc:  # --help, --version and usage errors end argparse this way
        return exc.code if isinstance(exc.code, int) else 0
    try:
        loaded = load_settings(args.config) if args.uses_settings else LoadedSettings(Settings(), None)
    except ConfigError as exc:
        _complain(str(exc))
        return EXIT_USAGE
    for warning in loaded.warnings:
        _complain(f"warning: {warning}")
    try:
        return args.run(args, loaded)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except UsageError as exc:
        _complain(str(exc))
        return EXIT_USAGE
    except UserFacingError as exc:
        _complain(str(exc))
        return 1
    except BrokenPipeError:
        raise  # the reader has gone: `main` ends quietly
    except Exception as exc:  # a bug or an unforeseen fault: one line; the traceback when asked for
        return _unexpected(exc, verbose=args.verbose)


def _unexpected(exc: Exception, *, verbose: bool) -> int:
    """Name the error (and where the open session stands) in one line; the traceback before it with --verbose."""
    error = exc.error if isinstance(exc, Unexpected) else exc
    if verbose:
        sys.stderr.write(neutralize("".join(traceback.format_exception(error))))
    detail = (str(error).strip().splitlines() or [""])[0][:MAX_DETAIL]
    line = f"unexpected error: {type(error).__name__}" + (f": {detail}" if detail else "")
    if isinstance(exc, Unexpected):
        line += f"; {exc.where}"
    _complain(line if verbose else f"{line} (--verbose shows the traceback)")
    return 1


def _ensure_standard_streams() -> None:
    """Point a closed stdin, stdout or stderr (`2>&-`) at /dev/null.

    Python leaves the stream of a closed descriptor as None, so the first
    note would fail; worse, the next file opened (the session database) would
    get descriptor 2 and receive whatever is written to stderr.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            _point_at_devnull(fd)
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 (open for the whole run)
    if sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 (open for the whole run)
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 (open for the whole run)


def _reader_gone() -> int:
    """The reader of stdout or stderr has gone: stop without a word, with the shell's SIGPIPE status.

    Whichever stream can no longer be flushed is pointed at /dev/null, so
    Python's own flush at exit does not fail a second time.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            _point_at_devnull(stream.fileno())
    return EXIT_READER_GONE


def _point_at_devnull(fd: int) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    if null != fd:
        os.dup2(null, fd)
        os.close(null)


def _complain(message: str) -> None:
    """Errors and warnings go to stderr with the program name, as Unix tools do.

    Neutralized: an error can quote a server's reply or a file's contents.
    """
    print(f"{PROG}: {neutralize(message)}", file=sys.stderr)


def _run_chat(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    """`-p TEXT` answers once (with what is piped into stdin); without it, the TUI on a terminal,
    else a line chat on stdin."""
    from hermeslite.chat import run_chat
    from hermeslite.headless_json import OutputChoice

    prompt = None
    if args.prompt is not None:
        read = read_prompt(args.prompt, sys.stdin, piped=stdin_is_piped(sys.stdin))
        for warning in read.warnings:
            _complain(f"warning: {warning}")
        prompt = read.text
    return run_chat(
        loaded.settings,
        prompt=prompt,
        model=args.model,
        api_base=args.api_base,
        mode=args.mode,
        notices=tuple(loaded.warnings),
        continue_latest=args.continue_latest,
        resume=args.resume,
        verbose=args.verbose,
        config_found=loaded.source is not None,
        output=OutputChoice(args.output_format, args.include_partial),
    )


def _run_setup(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from hermeslite.setup_command import run_setup

    return run_setup(args, args.config)


def _run_sessions(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from hermeslite.chat import list_sessions

    print(list_sessions(), end="")
    return 0
