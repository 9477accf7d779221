"""What the terminal would show, as plain text: for assertions about wording and layout."""

from __future__ import annotations


def screen_text(app) -> str:
    """The current screen (modals included) rendered to lines of plain text."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)
