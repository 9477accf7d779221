"""The top line: which model, which session, which directory.

These three answer "where am I?" after a /resume or /model, so they are
always on screen. The model label says when it is still loading, because the
first send waits for it.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from hermeslite.display import neutralize

TITLE_CHARS = 24


class HeaderBar(Widget):
    model = reactive("")
    session_title = reactive("new session")
    cwd = reactive("")
    starting = reactive(True)  # not `loading`: Widget.loading draws a loading indicator

    def render(self) -> Content:
        model = f"{self.model} (loading…)" if self.starting else self.model
        title = neutralize(self.session_title or "new session")
        if len(title) > TITLE_CHARS:
            title = title[: TITLE_CHARS - 1] + "…"
        # $variables are substituted as plain text: no model name or title can inject markup.
        return Content.from_markup(
            "[b]⚕ hermeslite[/b]  [$accent]$model[/]  │  $title  │  [dim]$cwd[/]",
            model=neutralize(model),
            title=title,
            cwd=neutralize(self.cwd),
        )
