"""A finished piece of Markdown drawn from lines rendered once: one widget instead of dozens.

Textual lays out every widget on the screen again whenever anything grows,
off-screen ones included, so a long conversation made of live `Markdown`
widgets (a widget per paragraph, four per list item) makes each streamed
frame slower than the last. Text that can no longer change is rendered once,
by Textual's own compositor so it looks exactly the same, and kept as lines.

The lines hold the colours of the moment and the width they were drawn at,
so a resize or a theme change turns the widget back into live Markdown
(`Thaw`), which its parent freezes again after the next layout. If the
compositor cannot be used (it is Textual's internal API), nothing is frozen:
the live widget simply stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.events import Resize
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.widgets import Markdown


Line = tuple  # the Segments of one line: kept instead of Strips, which carry seven caches each
               # (tens of thousands of small objects for the garbage collector to walk, per reply)


def render_to_lines(widget: Widget) -> list[Line] | None:
    """The lines `widget` and its children draw at their current size, or None if that fails."""
    try:
        from textual._compositor import Compositor

        size = widget.region.size
        if not size.width or not size.height:
            return None
        compositor = Compositor()
        compositor.reflow(widget, size)
        return [tuple(strip) for strip in compositor.render_strips(size)]
    except Exception:  # noqa: BLE001 - an internal API changed: keep the live widget
        return None


class FrozenMarkdown(Widget):
    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    class Thaw(Message):
        """Asks the parent to replace this widget with live Markdown again."""

        def __init__(self, frozen: FrozenMarkdown) -> None:
            super().__init__()
            self.frozen = frozen

    def __init__(self, source: str, lines: list[Line], width: int) -> None:
        super().__init__()
        self.source = source
        self._lines = lines
        self._width = width
        self._thawing = False

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._thaw())

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        if 0 <= y < len(self._lines):
            return Strip(self._lines[y], self._width)
        return Strip.blank(self.size.width)

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._width:
            self._thaw()

    def _thaw(self) -> None:
        if not self._thawing:
            self._thawing = True
            self.post_message(self.Thaw(self))


async def freeze(markdown: Markdown) -> FrozenMarkdown | None:
    """Swap a laid-out Markdown widget for its frozen twin; None (and no change) when it cannot be."""
    parent = markdown.parent
    if not markdown.is_attached or not isinstance(parent, Widget):
        return None
    lines = render_to_lines(markdown)
    if lines is None:
        return None
    frozen = FrozenMarkdown(markdown.source, lines, markdown.region.width)
    await parent.mount(frozen, before=markdown)
    await markdown.remove()
    return frozen


async def thaw(frozen: FrozenMarkdown) -> Markdown:
    """Swap a frozen widget for live Markdown (after a resize or a theme change)."""
    from textual.widgets import Markdown

    live = Markdown(frozen.source)
    if isinstance(frozen.parent, Widget):
        await frozen.parent.mount(live, before=frozen)
    await frozen.remove()
    return live
