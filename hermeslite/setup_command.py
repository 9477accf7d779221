"""`hermeslite setup`: choose a provider, prove the key with one request, write a minimal config.

Questions go to stderr and answers come from stdin, one line each, so a
script can pipe them in; every answer can also be given as an option
(`--provider anthropic --key-env WORK_KEY`), and what an option answers is
not asked. A pasted key is read without echo at a terminal. Nothing is
written when the check fails, and the line says what failed.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from hermeslite.config import PROJECT_FILE, ConfigError, display_path
from hermeslite.display import neutralize
from hermeslite.errors import UsageError, UserFacingError
from hermeslite.provider_setup import (
    PROVIDERS,
    Choice,
    Provider,
    check,
    check_url,
    first_run_done,
    key_answer,
    provider_by_id,
    target_file,
    write_config,
)

Ask = Callable[[str], str]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--provider", choices=[p.id for p in PROVIDERS], help="the provider, instead of choosing from the list"
    )
    parser.add_argument("--model", dest="setup_model", metavar="NAME", help="the litellm model string to use")
    parser.add_argument(
        "--api-base", dest="setup_api_base", metavar="URL", help="the server's URL (a local server, or a proxy)"
    )
    parser.add_argument("--key-env", metavar="VAR", help="the environment variable that holds the key")
    parser.add_argument(
        "--save-key", action="store_true", help="write a pasted key into the config file (default: name its variable)"
    )
    parser.add_argument("--no-check", action="store_true", help="write the config without the test request")


def run_setup(args: argparse.Namespace, config_path: str | None) -> int:
    """The dialogue, the check, the file. Returns 0 once the config is written."""
    ask = _asker()
    choice = _choose(args, ask, os.environ)
    if not args.no_check:
        _say(f"checking {choice.model} with one short request…")
        problem = asyncio.run(check(choice))
        if problem is not None:
            raise UserFacingError(f"setup: {problem.rstrip('.')}; nothing was written")
        _say("it answered.")
    path = target_file(config_path)
    try:
        written = write_config(choice, path)
    except ConfigError as exc:
        raise UserFacingError(str(exc)) from None
    except OSError as exc:
        raise UserFacingError(f"cannot write {path}: {exc.strerror or exc}") from None
    first_run_done()
    _report(choice, written.path, written.backup)
    return 0


def _choose(args: argparse.Namespace, ask: Ask, environ: Mapping[str, str]) -> Choice:
    provider = provider_by_id(args.provider) if args.provider else _ask_provider(ask, environ)
    model = args.setup_model or _ask_default(ask, "model", provider.model)
    api_base = _endpoint(provider, args.setup_api_base, ask)
    key_env, key, save_key = None, None, False
    if args.key_env:
        if not environ.get(args.key_env):
            raise UsageError(f"setup: {args.key_env} is not set in this shell: export it first")
        key_env = args.key_env
    elif provider.key_env:
        key_env, key = _ask_key(provider, ask, environ)
        save_key = bool(key) and (args.save_key or _ask_yes(ask, "save the key in the config file?"))
    elif provider.asks_url:
        answer = ask("the server's key, if it needs one (Enter: none): ").strip()
        if answer:
            key_env, key = key_answer(Provider("custom", "", "", "OPENAI_API_KEY"), answer, environ)
            save_key = bool(key) and (args.save_key or _ask_yes(ask, "save the key in the config file?"))
    return Choice(provider, model, api_base, key_env, key, save_key)


def _ask_provider(ask: Ask, environ: Mapping[str, str]) -> Provider:
    _say("Which model should hermeslite use?")
    default = next((n for n, p in enumerate(PROVIDERS, 1) if p.key_env and environ.get(p.key_env)), 1)
    for n, provider in enumerate(PROVIDERS, 1):
        has = f"  ({provider.key_env} is set)" if provider.key_env and environ.get(provider.key_env) else ""
        _say(f"  {n}) {provider.label}{has}")
    answer = ask(f"choice [{default}]: ").strip() or str(default)
    if not answer.isdigit() or not 1 <= int(answer) <= len(PROVIDERS):
        raise UsageError(f"setup: {answer!r} is not one of 1 to {len(PROVIDERS)}")
    return PROVIDERS[int(answer) - 1]


def _endpoint(provider: Provider, given: str | None, ask: Ask) -> str | None:
    try:
        if given:
            return check_url(given)
        if provider.asks_url:
            return check_url(ask("the server's URL (e.g. http://127.0.0.1:8080/v1): "))
        if provider.api_base:
            return check_url(_ask_default(ask, "URL", provider.api_base))
    except ValueError as exc:
        raise UsageError(f"setup: {exc}") from None
    return None


def _ask_key(provider: Provider, ask: Ask, environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    if provider.key_env and environ.get(provider.key_env):
        _say(f"using the key in {provider.key_env}.")
        return provider.key_env, None
    _say(f"{provider.key_env} is not set. Paste the key (it is not shown), or the name of the variable that holds it.")
    try:
        return key_answer(provider, ask("key: ") if not sys.stdin.isatty() else _secret("key: "), environ)
    except ValueError as exc:
        raise UsageError(f"setup: {exc}") from None


def _ask_default(ask: Ask, what: str, default: str) -> str:
    return ask(f"{what} [{default}]: ").strip() or default


def _ask_yes(ask: Ask, question: str) -> bool:
    return ask(f"{question} (a key in a file is easier to leak) [y/N]: ").strip().lower() in ("y", "yes")


def _report(choice: Choice, path: Path, backup: Path | None) -> None:
    shown = display_path(path)
    print(neutralize(f"wrote {shown}: model {choice.model}" + (f" at {choice.api_base}" if choice.api_base else "")))
    if backup is not None:
        _say(f"the previous file is kept as {display_path(backup)} (its comments are not in the new one)")
    if choice.key and choice.save_key:
        _say(f"the key is saved in {shown} (readable by you only)")
    elif choice.key and choice.key_env:
        _say(
            f"the key is not saved: add `export {choice.key_env}=<your key>` to your shell profile "
            "(~/.bashrc, ~/.zshrc), then open a new terminal"
        )
    if (Path.cwd() / PROJECT_FILE).is_file() and path != Path.cwd() / PROJECT_FILE:
        _say(f"note: ./{PROJECT_FILE} is used instead in this folder")


def _asker() -> Ask:
    def ask(prompt: str) -> str:
        sys.stderr.write(prompt)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise UsageError("setup: no answer (end of input); the options --provider, --model, ... answer it")
        return line.rstrip("\n")

    return ask


def _secret(prompt: str) -> str:
    return getpass.getpass(prompt, stream=sys.stderr)


def _say(text: str) -> None:
    sys.stderr.write(neutralize(text) + "\n")
    sys.stderr.flush()
