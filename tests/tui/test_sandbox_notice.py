"""The TUI says once, at start-up, when terminal commands run without the Landlock sandbox."""

from __future__ import annotations

from tests.tui.pilot import SIZE, ready, settle
from tests.tui.screen import Notifications


async def test_sandbox_off_is_announced_once(make_app):
    app = make_app(tools={"sandbox": "off"})
    shown = Notifications()
    async with app.run_test(size=SIZE, notifications=True, message_hook=shown) as pilot:
        await ready(pilot)
        await settle(pilot)
        said = [n.message for n in shown if "sandbox off (tools.sandbox: off)" in n.message]
        assert len(said) == 1


async def test_a_missing_landlock_is_announced_and_a_present_one_is_not(make_app):
    from hermeslite.tools.landlock import abi_version

    app = make_app()
    shown = Notifications()
    async with app.run_test(size=SIZE, notifications=True, message_hook=shown) as pilot:
        await ready(pilot)
        await settle(pilot)
        about_landlock = [n.message for n in shown if "Landlock" in n.message]
        assert bool(about_landlock) is (abi_version() == 0)
