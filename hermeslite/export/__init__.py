"""Session export: one typed view of a stored session (view.py), rendered as Markdown, JSON or HTML.

Front ends only call `render` or `write_export`; the rendering lives here.
"""

from .files import FORMATS, ExportError, UnknownFormat, default_name, format_for, render, write_export
from .view import CompactionMark, MessageEntry, SessionView, load_view

__all__ = [
    "FORMATS",
    "CompactionMark",
    "ExportError",
    "MessageEntry",
    "SessionView",
    "UnknownFormat",
    "default_name",
    "format_for",
    "load_view",
    "render",
    "write_export",
]
