"""A finished piece of Markdown drawn from lines rendered once: one widget instead of dozens.

Textual lays out every widget on the screen again whenever anything grows,
off-screen ones included, so a long conversation made of live `Markdown`
widgets (a widget per paragraph, four per list item) makes each streamed
frame slower than the last. Text that can no longer change is rendered once
and kept as lines: each widget of the Markdown tree draws itself with its
public `render_lines`, at the place and size the screen's layout gave it,
children over their parent and clipped to it, as the screen would paint them.

The lines hold the colours of the moment and the width they were drawn at,
so a resize or a theme change turns the widget back into live Markdown
(`Thaw`), which its parent freezes again after the next layout. A widget
that has not been laid out yet is not frozen: the live one simply stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.events import Resize
from textual.geometry import Offset, Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.widgets import Markdown


Line = tuple  # the Segments of one line: kept instead of Strips, which carry seven caches each
# (tens of thousands of small objects for the garbage collector to walk, per reply)


def render_to_lines(widget: Widget) -> list[Line] | None:
    """The lines `widget` and its children draw at their laid-out size, or None before layout."""
    root = widget.region
    if not root.width or not root.height:
        return None
    canvas = widget.render_lines(Region(0, 0, root.width, root.height))
    _paint_children(widget, canvas, root.offset, Region(0, 0, root.width, root.height))
    return [tuple(strip) for strip in canvas]


def _paint_children(parent: Widget, canvas: list[Strip], origin: Offset, clip: Region) -> None:
    """Paint `parent`'s displayed children over `canvas` (whose top left is `origin` on screen), within `clip`."""
    for child in parent.children:
        if not child.display or not child.visible:
            continue
        region = child.region
        if not region.width or not region.height:
            continue
        placed = region.translate(-origin)
        visible = placed.intersection(clip)
        if not visible.width or not visible.height:
            continue
        lines = child.render_lines(Region(0, 0, region.width, region.height))
        left, right = visible.x - placed.x, visible.right - placed.x
        for y in range(visible.y, visible.bottom):
            line = canvas[y]
            drawn = lines[y - placed.y].crop(left, right)
            canvas[y] = Strip.join([line.crop(0, visible.x), drawn, line.crop(visible.right, line.cell_length)])
        _paint_children(child, canvas, origin, visible)


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
