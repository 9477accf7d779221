"""A tool call as a collapsible panel: what ran, whether it worked, and its output on demand.

Collapsed it is one line (`✓ terminal  pytest -q  · exit 0 · 48 lines, 2.1 kB`)
so a long agentic turn stays readable; expanding shows the head of the
result (a `!command` the user ran starts expanded: they ran it to see it).
An edit by write_file or patch shows its diff stat in the title (`+12 −3`)
and the coloured diff inside, so what changed is one click (or Ctrl+O) away.
The title is built as `Content`, never parsed as markup, because commands and
paths are full of square brackets. A click toggles it, and it never takes the
keyboard focus (see chat_view.py).
"""

from __future__ import annotations

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Collapsible, Static
from textual.widgets.collapsible import CollapsibleTitle

from hermeslite.display import key_argument, neutralize
from hermeslite.tools.edit_diff import EditDiff

from ..diff_text import diff_content
from ..format import preview, result_summary
from .spinner import FRAMES, INTERVAL

DIFF_LINES = 200  # of an edit's diff in the expanded panel; /diff shows everything


class ToolPanel(Collapsible):
    """One tool call; `finish` or `cancel` ends it."""

    def __init__(self, call_id: str, name: str, arguments: str, *, collapsed: bool = True, motion: bool = True) -> None:
        self.call_id = call_id
        self.motion = motion  # False: the spinner frame stays still
        self.tool_name = neutralize(name)
        self.argument = key_argument(arguments)
        self.state = "running"  # running | ok | error | cancelled
        self._frame = 0
        self._timer: Timer | None = None
        self._body = Static("", markup=False, classes="tool-output")
        super().__init__(self._body, title=self._label(FRAMES[0]), collapsed=collapsed, classes="-running")  # type: ignore[arg-type]  # Content, not str: no markup in the title

    def on_mount(self) -> None:
        self.query_one(CollapsibleTitle).can_focus = False
        if self.state == "running" and self.motion:
            self._timer = self.set_interval(INTERVAL, self._tick)

    def _label(self, mark: str, outcome: str = "") -> Content:
        parts: list[tuple[str, str] | str] = [(mark, "bold"), " ", (self.tool_name, "bold"), "  ", self.argument]
        if outcome:
            parts += ["  ", (f"· {outcome}", "dim")]
        return Content.assemble(*parts)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(FRAMES)
        self.title = self._label(FRAMES[self._frame])  # type: ignore[assignment]  # Content, not str: no markup in the title

    def _end(self, state: str, mark: str, outcome: str, body: str | Content) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.remove_class(f"-{self.state}")
        self.add_class(f"-{state}")
        self.state = state
        self.title = self._label(mark, outcome)  # type: ignore[assignment]  # Content, not str: no markup in the title
        self._body.update(body if isinstance(body, Content) else Content(neutralize(body)))

    def finish(self, content: str, is_error: bool, exit_code: int | None, diff: EditDiff | None = None) -> None:
        """Show the outcome: exit code and size in the title, the head of the output inside; for an
        edit that was written, its diff stat in the title and the diff inside."""
        mark, state = ("✗", "error") if is_error else ("✓", "ok")
        if diff is not None and not is_error:
            self._end(state, mark, diff.stat, _diff_body(diff))
            return
        self._end(state, mark, result_summary(content, is_error, exit_code), preview(content) or "(no output)")

    def cancel(self, *, ran: bool = True) -> None:
        """The turn was cancelled while this ran (its process group has been killed) or before it
        ran (it waited on the approval dialog)."""
        outcome = "cancelled, process killed" if ran else "cancelled before it ran"
        self._end("cancelled", "■", outcome, "Cancelled by the user (Esc).")


def _diff_body(diff: EditDiff) -> Content:
    """The coloured diff, its first DIFF_LINES lines; a note (binary, too large) or `no change` alone."""
    lines = diff.lines
    if not lines:
        return Content(neutralize(diff.summary()))
    shown = "\n".join(lines[:DIFF_LINES])
    more = len(lines) - DIFF_LINES
    body = diff_content(shown)
    return body + Content(f"\n… {more} more lines (/diff shows them all)") if more > 0 else body
