"""Choosing a format, naming the file and writing it: what the CLI and /export share.

A format is named (`--format`) or read from the file's suffix (`/export
notes.html`); without either it is Markdown. A file with no name given goes in
the project directory as `hermeslite-<session id>.<suffix>`, which says what
it is and never collides with another session's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hermeslite.errors import UsageError, UserFacingError

from .html_format import render_html
from .json_format import render_json
from .markdown import render_markdown
from .view import SessionView

RENDERERS: dict[str, Callable[[SessionView], str]] = {"md": render_markdown, "json": render_json, "html": render_html}
FORMATS = tuple(RENDERERS)
SUFFIXES = {".md": "md", ".markdown": "md", ".json": "json", ".html": "html", ".htm": "html"}


class ExportError(UserFacingError):
    """The export could not be written; `str()` is the one line for the user."""


class UnknownFormat(UsageError):
    """A format nobody renders; `str()` is the one line for the user."""


def render(view: SessionView, fmt: str) -> str:
    try:
        renderer = RENDERERS[fmt]
    except KeyError:
        raise UnknownFormat(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}") from None
    return renderer(view)


def format_for(path: str | Path) -> str:
    """The format a file name asks for by its suffix; Markdown when it names none we know."""
    return SUFFIXES.get(Path(path).suffix.lower(), "md")


def default_name(session_id: str, fmt: str) -> str:
    return f"hermeslite-{session_id}.{fmt}"


def write_export(view: SessionView, target: str | None, cwd: Path, fmt: str | None = None) -> Path:
    """Write `view` to `target` (relative to `cwd`; None: the default name in `cwd`); the path written.

    The format is `fmt`, else the target's suffix, else Markdown. The file is written whole
    or not at all (a temporary file renamed into place).
    """
    chosen = fmt or (format_for(target) if target else "md")
    text = render(view, chosen)
    path = Path(os.path.expanduser(target)) if target else Path(default_name(view.session_id, chosen))
    path = path if path.is_absolute() else cwd / path
    if path.is_dir():
        raise ExportError(f"{path} is a directory: give a file name")
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ExportError(f"could not write {path}: {exc.strerror or exc}") from None
    return path
