"""The top line: which model, which session, which directory.

These three answer "where am I?" after a /resume or /model, so they are
always on screen. The model label says when it is still loading, because the
first send waits for it, and how a model nobody named was picked (a key in
the environment, or the small local model that cannot run tools).
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from hermeslite.display import neutralize

TITLE_CHARS = 24


class HeaderBar(Widget):
    model = reactive("")
    origin = reactive("")  # how a model nobody named was picked: "from OPENAI_API_KEY", "no key: chat only, no tools"
    session_title = reactive("new session")
    cwd = reactive("")
    starting = reactive(True)  # not `loading`: Widget.loading draws a loading indicator

    def render(self) -> Content:
        model = f"{self.model} ({self.origin})" if self.origin else self.model
        model = f"{model} (loading…)" if self.starting else model
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
