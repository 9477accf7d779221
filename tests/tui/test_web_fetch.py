"""web_fetch in the app, through the real loop and the scripted model: a new host asks once, and
"for this session" covers that host alone (tools/web/)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hermeslite.tui.screens.approval import ApprovalScreen
from tests.envelope import unwrapped
from tests.server import Reply
from tests.tools.web.site import Site, serve
from tests.tui.pilot import answer_approval, ready, send, settle, until
from tests.tui.screen import screen_text

WIDE = (120, 40)


@pytest.fixture
def site() -> Iterator[Site]:
    yield from serve()


def last_result(scripted_server) -> str:
    return unwrapped(scripted_server.requests[-1]["messages"][-1]["content"])


async def test_a_new_host_asks_once_and_for_this_session_covers_that_host_only(make_app, scripted_server, site):
    app = make_app(tools={"web_fetch": {"allow_private": True}})
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        scripted_server.enqueue(Reply.tool_calls([("web_fetch", {"url": site.url("/page")})]), Reply.text("read it"))
        await send(pilot, "read the tide page", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        shown = screen_text(app)
        assert "This web_fetch call needs your approval" in shown and "Why: fetches from 127.0.0.1, which" in shown
        assert "For this session covers: web_fetch from 127.0.0.1." in shown
        assert site.hosts == []  # nothing fetched before the answer
        await answer_approval(pilot, "a")
        await settle(pilot)
        assert "| Brest | 06:12 |" in last_result(scripted_server)

        scripted_server.enqueue(Reply.tool_calls([("web_fetch", {"url": site.url("/data.json")})]), Reply.text("ok"))
        await send(pilot, "and the data")
        assert not isinstance(app.screen, ApprovalScreen)  # the same host: not asked again
        assert '"brest": "06:12"' in last_result(scripted_server)

        scripted_server.enqueue(
            Reply.tool_calls([("web_fetch", {"url": site.url("/page", host="localhost")})]), Reply.text("no")
        )
        await send(pilot, "the same page by name", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))  # another host asks
        assert "web_fetch from localhost" in screen_text(app)
        await answer_approval(pilot, "n")
        await settle(pilot)
        assert "the user denied this fetch" in last_result(scripted_server)
        assert len(site.hosts) == 2  # the two fetches from 127.0.0.1; localhost was never reached
