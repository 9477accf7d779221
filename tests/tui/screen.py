"""What the terminal would show, read through Textual's public screenshot export.

`App.export_screenshot()` draws the current screen (modals and toasts
included) as an SVG in which every run of non-blank text is a `<text>`
element tagged with its line (`clip-path="url(#...-line-N)"`) and placed at
`x = column * cell width`. Putting the runs back at their columns gives the
screen as plain text, without reaching into Textual's compositor.
"""

from __future__ import annotations

import html
import re

from rich.cells import cell_len
from textual.message import Message
from textual.notifications import Notify

RUN = re.compile(
    r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" '
    r'clip-path="url\(#[\w-]+-line-(\d+)\)">(.*?)</text>',
    re.DOTALL,
)


def drawn_svg(app) -> str:
    """The current screen as the SVG screenshot Textual exports (every drawn character is in it)."""
    return app.export_screenshot()


def screen_text(app) -> str:
    """The current screen rendered to lines of plain text."""
    runs: dict[int, list[tuple[int, str]]] = {}
    for x, text_length, line, escaped in RUN.findall(drawn_svg(app)):
        text = html.unescape(escaped).replace("\xa0", " ")
        cell_width = float(text_length) / len(text)  # textLength counts characters, x counts cells
        runs.setdefault(int(line), []).append((round(float(x) / cell_width), text))
    lines = []
    for row in range(app.size.height):
        line, column = "", 0
        for start, text in sorted(runs.get(row, [])):
            line += " " * (start - column) + text
            column = start + cell_len(text)
        lines.append(line.rstrip())
    return "\n".join(lines)


class Notifications(list):
    """Every notification the app raised, caught from its `Notify` messages.

    Pass an instance as `run_test(message_hook=...)`: Textual calls it with each message it dispatches.
    """

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.append(message.notification)
