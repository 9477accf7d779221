"""Driving a running HermesApp through its Pilot: type, send, and wait for what the agent does."""

from __future__ import annotations

from tests.builders import FILLER

SIZE = (80, 24)  # the terminal the TUI tests run in


async def settle(pilot) -> None:
    """Let workers finish and everything the agent said be drawn."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await until(pilot, lambda: pilot.app.feed.idle)
    for _ in range(3):
        await pilot.pause()


async def ready(pilot) -> None:
    """Wait until the agent is built and the header has stopped saying "loading"."""
    from hermeslite.tui.widgets.header import HeaderBar

    await pilot.app.host.ready()
    for _ in range(100):
        await pilot.pause()
        if not pilot.app.query_one(HeaderBar).starting:
            return
    raise AssertionError("the app never reported the agent ready")


async def send(pilot, text: str, *, wait: bool = True) -> None:
    """Type `text` into the prompt (set directly: pressing 500 keys is slow) and press Enter."""
    pilot.app.prompt.text = text
    pilot.app.prompt.move_cursor((pilot.app.prompt.document.line_count - 1, len(text.splitlines()[-1])))
    await pilot.press("enter")
    if wait:
        await settle(pilot)


async def until(pilot, condition, timeout: float = 10.0) -> None:
    """Pause until `condition()` holds (for things in flight, such as a running tool).

    `timeout` is the give-up time on an idle machine; a loaded one waits longer (tests/patience.py).
    """
    import time

    from tests.patience import patience

    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > patience(timeout):
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def chat(pilot, turns: int, *, start: int = 0, text: str = FILLER) -> None:
    """`turns` user turns of `text` sent one after the other, each waited for."""
    for n in range(start, start + turns):
        await send(pilot, f"turn {n}: {text}")


async def escape_the_running_command(pilot, command: str) -> None:
    """Once its panel shows, let `command` start and press Esc: the panel and a note say it was killed."""
    from hermeslite.tui.widgets.message import NoteLine
    from hermeslite.tui.widgets.tool_panel import ToolPanel

    app = pilot.app
    await until(pilot, lambda: app.chat.query(ToolPanel))
    await pilot.pause(0.2)
    await pilot.press("escape")
    await settle(pilot)
    assert app.chat.query_one(ToolPanel).state == "cancelled"
    assert f"Cancelled: stopped terminal `{command}` (process killed)." in [n.text for n in app.chat.query(NoteLine)]


async def bang_touch_awaiting_approval(pilot, outside) -> None:
    """Type `!touch <outside>/flag` (a write outside the project) and wait for the dialog it opens."""
    from hermeslite.tui.screens.approval import ApprovalScreen

    await send(pilot, f"!touch {outside}/flag", wait=False)
    await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen))


async def answer_approval(pilot, key: str) -> None:
    """Press `key` in the approval dialog as a person does: after a pause, so it is not taken as typing."""
    from hermeslite.tui.screens.approval import TYPING_GAP

    await pilot.pause(TYPING_GAP + 0.1)
    await pilot.press(key)
