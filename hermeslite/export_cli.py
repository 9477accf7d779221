"""`hermeslite export [ID] [--format md|json|html] [-o FILE]`: a saved session as a file, or on stdout.

Without an id it exports the session /resume and --continue would pick here:
the most recent one started in this directory. Reading needs no claim on the
session, so a session open in another window exports as it stands.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermeslite.config import LoadedSettings
from hermeslite.errors import UsageError

if TYPE_CHECKING:
    from hermeslite.store.sessions import SessionStore

FORMATS = ("md", "json", "html")  # hermeslite.export renders these; read here without importing it (start time)


def add_parser(commands: Any, add_config_option: Callable[[argparse.ArgumentParser], None]) -> None:
    export = commands.add_parser(
        "export",
        allow_abbrev=False,
        help="write a saved session as Markdown, JSON or HTML, compacted turns included",
        description="Export a saved session whole: every turn, the ones compactions replaced included (from the "
        "archive), each compaction marked with its checkpoint, tool calls and outputs folded. Secrets stay masked as "
        "they were saved. JSON is the lossless form. Without -o it prints to stdout.",
    )
    add_config_option(export)
    export.add_argument("id", nargs="?", metavar="ID", help="session id or a unique prefix (default: the latest here)")
    export.add_argument(
        "--format",
        dest="export_format",
        metavar="FORMAT",
        help=f"{' | '.join(FORMATS)} (default: from -o's suffix, else md)",
    )
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    export.set_defaults(run=run_export, uses_settings=False)


def run_export(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from hermeslite.export import load_view, render, write_export
    from hermeslite.store.sessions import SessionStore, default_sessions_path

    fmt = args.export_format
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    with SessionStore(default_sessions_path()) as store:
        session_id = _session(store, args.id)
        view = load_view(store, session_id)
    if args.output:
        path = write_export(view, args.output, Path.cwd(), fmt)
        print(f"exported session {session_id} → {path}", file=sys.stderr)
    else:
        sys.stdout.write(render(view, fmt or "md"))
    return 0


def _session(store: SessionStore, given: str | None) -> str:
    from hermeslite.store.sessions import SessionNotFound

    try:
        if given is not None:
            return store.resolve_id(given)
    except SessionNotFound as exc:
        raise UsageError(str(exc)) from None
    here = Path.cwd()
    found = store.latest_session_id(here) or store.latest_session_id(here.resolve())
    if found is None:
        raise UsageError(f"no saved session was started in {here}; give an id (`hermeslite sessions` lists them)")
    return found
