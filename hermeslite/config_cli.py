"""`hermeslite config` and `hermeslite trust`: what the settings are and where they come from,
and whether a project's ./hermeslite.yaml may set the keys that need trust.

Both print for a person (the config as YAML a user can save, with comments saying where each
part came from) and return an exit code, as every command of cli.py does.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hermeslite.config import (
    PROJECT_FILE,
    ConfigError,
    LoadedSettings,
    Settings,
    default_config_paths,
    display_path,
    format_settings,
    project_guarded_values,
)
from hermeslite.config_file import read_file
from hermeslite.display import neutralize
from hermeslite.errors import UserFacingError
from hermeslite.trust import Trust, TrustStore


def run_config(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    """Print the source and the sandbox as comments, then the settings, so the output can be saved
    as a config file; then where compaction starts for the model (`--model`'s, if given) and why."""
    from hermeslite.tools.sandbox import status
    from hermeslite.tools.workplace import risky_workplace

    if loaded.source is None:
        looked = " or ".join(str(path) for path in default_config_paths())
        print(neutralize(f"# no config file found (looked for {looked}); using built-in defaults"))
    else:
        print(neutralize(f"# settings from {loaded.source}"))
    if loaded.trust is not None:
        print(f"# {_trust_state(loaded.trust, loaded.ignored)}")
    if loaded.base is not None:
        print(neutralize(f"# laid over {loaded.base}: the project's keys win; hooks from both run, yours first"))
    tools = loaded.settings.tools
    sandbox = status(tools.sandbox, tools.approval, tools.writable_paths, Path.cwd(), tools.network_allow)
    print(neutralize(f"# sandbox: {sandbox}"))
    if workplace := risky_workplace(Path.cwd(), Path.home()):
        print(neutralize(f"# warning: {workplace}"))
    _print_instruction_files(loaded.settings)
    print(format_settings(loaded.settings), end="")
    from hermeslite.agent.factory import configured_threshold
    from hermeslite.resume import with_overrides

    # `hermeslite --model NAME config`: the threshold that model would get under these settings.
    model, threshold, guessed = configured_threshold(
        with_overrides(loaded.settings, model=args.model, api_base=args.api_base)
    )
    print(f"# compaction for {model}: {threshold.describe()}")
    if guessed:
        print(neutralize(f"# {guessed}"))
    return 0


def _print_instruction_files(settings: Settings) -> None:
    """The AGENTS.md files a session started here would read, as comments of `hermeslite config`."""
    from hermeslite.agent.project_docs import config_lines
    from hermeslite.paths import config_dir

    wanted = settings.instructions
    for line in config_lines(Path.cwd(), wanted.files, wanted.max_bytes, config_dir()):
        print(neutralize(f"# {line}"))


def _trust_state(trust: Trust, ignored: list[str]) -> str:
    """The project file's trust, and what it costs: the one line `hermeslite config` adds for it."""
    state = f"project file, {trust.value}"
    if ignored:
        return f"{state}: ignored {', '.join(ignored)}; `hermeslite trust` to use them"
    if trust is Trust.TRUSTED:
        return f"{state} (`hermeslite trust --revoke` to undo)"
    return f"{state}: it sets nothing that needs trust"


def run_trust(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    """Trust (or forget) ./hermeslite.yaml as it is now, and say what that lets it set."""
    path = Path.cwd() / PROJECT_FILE
    shown = display_path(path)
    store = TrustStore()
    if args.revoke:
        print(f"{shown} is no longer trusted" if store.revoke(path) else f"{shown} was not trusted")
        return 0
    if not path.is_file():
        raise UserFacingError(f"there is no {PROJECT_FILE} in {Path.cwd()}: nothing to trust")
    try:
        data = read_file(path)
        guarded = project_guarded_values(path, data)
    except ConfigError as exc:
        raise UserFacingError(str(exc)) from None
    store.trust(path, data)
    if guarded:
        settings = ", ".join(f"{key}: {_guarded_value(key, value)}" for key, value in guarded.items())
        print(neutralize(f"trusted {shown}; from now on it sets {settings}"))
    else:
        print(f"trusted {shown} (it sets nothing that needs trust yet)")
    print("a changed file needs `hermeslite trust` again; `hermeslite trust --revoke` undoes this")
    return 0


def _guarded_value(key: str, value: object) -> object:
    """A guarded key's value as `hermeslite trust` names it; for hooks, the commands they run."""
    if key == "hooks" and isinstance(value, dict):
        from hermeslite.tools.hooks.settings import HooksConfig, describe

        return f"({describe(HooksConfig(**value))})"
    return value
