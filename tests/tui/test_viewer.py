"""The read-only viewer at 80 columns: two-column text wraps under its second column, and a table
scrolls sideways instead of folding its rows."""

from __future__ import annotations

from hermeslite.tui.hanging import hang
from tests.tui.pilot import SIZE, ready, send
from tests.tui.screen import screen_text


def viewer_lines(app) -> list[str]:
    """The lines drawn inside the viewer's border, title first."""
    return [line.split("│")[1] for line in screen_text(app).splitlines() if line.count("│") >= 2][1:]


def test_a_long_line_continues_under_its_second_column_or_its_indent():
    text = (
        "  Esc       back to the input; there, cancel the running turn\n  a plain sentence that is long enough to wrap"
    )
    assert hang(text, 40).split("\n") == [
        "  Esc       back to the input; there,",
        "            cancel the running turn",
        "  a plain sentence that is long enough",
        "  to wrap",
    ]
    far = "x" * 30 + "  then the words of a meaning far to the right"
    assert hang(far, 40).split("\n")[1] == "words of a meaning far to the right"  # too far right: from the indent
    assert hang("short  line", 40) == "short  line"


async def test_help_wraps_each_meaning_under_its_column(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/help")
        lines = viewer_lines(app)
        start = next(i for i, line in enumerate(lines) if "compact the conversation" in line)
        column = lines[start].index("compact the conversation")
        assert "/compress [--preview]" in lines[start - 1] and lines[start][:column].strip() == ""
        following = lines[start + 1]
        assert following[:column].strip() == "" and following[column] != " ", following
        for line in lines:  # a continuation never starts under the command names
            assert line.startswith((" ", "⏸")) or line.strip() in ("", "Commands", "Shell", "Keys", "Not here"), line


async def test_sessions_rows_stay_one_line_each_and_scroll_sideways(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "a title that makes the table wider than eighty columns")
        await send(pilot, "/sessions")
        session = app.host.agent.session_id
        lines = viewer_lines(app)
        row = next(i for i, line in enumerate(lines) if session in line)
        assert "LAST ACTIVE" in lines[row - 1] and lines[row + 1].strip() == ""  # the row did not fold
        assert "a title" not in lines[row]
        for _ in range(40):
            await pilot.press("right")
        await pilot.pause(0.5)
        assert "a title that makes" in viewer_lines(app)[row]


async def test_a_tall_page_scrolls_to_its_last_line_and_keeps_its_hint_at_any_height(make_app):
    """The body once took the whole box and pushed the hint and its own last two lines out of sight."""
    from hermeslite.tui.views import KEYS

    last_meaning = KEYS[-1][1]
    for size in (SIZE, (120, 40)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await ready(pilot)
            await send(pilot, "/help")
            await pilot.press("end")
            await pilot.pause(0.3)
            lines = viewer_lines(app)
            assert lines[-1].strip() == "Esc or q to close", (size, lines[-3:])
            assert lines[-2].rstrip().endswith(last_meaning.split()[-1]), (size, lines[-3:])
