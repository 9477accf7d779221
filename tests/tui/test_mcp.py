"""MCP servers in the app, driven through the Pilot: the approval dialog for a server's tool and its
"for this session", /mcp and /mcp restart, a server's prompt as a command (and in the dropdown),
and a failure told as it happens."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.tools.mcp.config import McpServerConfig
from hermeslite.tui.app import HermesApp
from hermeslite.tui.screens.approval import ApprovalScreen
from hermeslite.tui.screens.text_viewer import TextViewer
from hermeslite.tui.widgets.message import NoteLine, UserMessage
from tests.envelope import sent_tool_results
from tests.mcp_servers import stdio_entry
from tests.server import Reply
from tests.tui.conftest import make_settings
from tests.tui.pilot import answer_approval, ready, send, settle, until
from tests.tui.screen import screen_text

WIDE = (120, 40)


@pytest.fixture
def mcp_app(scripted_server, tmp_path: Path, make_app):
    """`mcp_app(name={config keys}, ...)` -> a HermesApp with those MCP servers, not yet running."""

    def make(**servers: dict) -> HermesApp:
        settings = make_settings(scripted_server, tmp_path / "memory")
        settings = replace(settings, mcp_servers={n: McpServerConfig(**c) for n, c in servers.items()})
        project = tmp_path / "project"
        project.mkdir(exist_ok=True)
        llm = LiteLLMClient(settings.model, max_retries=0, retry_base_delay=0.01)
        return HermesApp(settings, cwd=project, llm=llm, store=make_app.store)

    return make


async def servers_started(pilot) -> None:
    await ready(pilot)
    await pilot.app.host.agent.deps.mcp.servers.wait_started()


def notes(app) -> list[str]:
    return [note.text for note in app.chat.query(NoteLine)]


async def test_a_server_tool_asks_and_a_allows_it_for_the_session(mcp_app, scripted_server, tmp_path):
    app = mcp_app(t=stdio_entry())
    first, second = tmp_path / "first", tmp_path / "second"
    async with app.run_test(size=WIDE) as pilot:
        await servers_started(pilot)
        await send(pilot, "hello")  # the tools join at the first message after the server is ready
        scripted_server.enqueue(Reply.tool_calls([("mcp__t__touch", {"path": str(first)})]), Reply.text("made it"))
        await send(pilot, "make the first file", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        shown = screen_text(app)
        assert "This mcp__t__touch call needs your approval" in shown
        assert "Why: mcp__t__touch is a tool of the MCP server t." in shown
        assert "For this session covers: calls of mcp__t__touch." in shown
        assert not first.exists()  # not before the answer
        await answer_approval(pilot, "a")
        await settle(pilot)
        assert first.exists()
        scripted_server.enqueue(Reply.tool_calls([("mcp__t__touch", {"path": str(second)})]), Reply.text("again"))
        await send(pilot, "make the second file")
        assert second.exists() and not isinstance(app.screen, ApprovalScreen)  # remembered: not asked again
        assert sent_tool_results(scripted_server) == [f"created {first}", f"created {second}"]


async def test_mcp_shows_the_servers_and_restart_brings_one_back(mcp_app, scripted_server):
    app = mcp_app(t=stdio_entry(), nope={"command": "no-such-mcp-program"})
    async with app.run_test(size=WIDE) as pilot:
        await servers_started(pilot)
        await until(pilot, lambda: "MCP server nope failed: command not found: no-such-mcp-program" in notes(app))
        await send(pilot, "/mcp")
        assert isinstance(app.screen, TextViewer)
        body = app.screen.body
        assert body.startswith("MCP servers · 1 ready, 1 failed · in the next request: 0 tools, 0 tokens")
        assert "✗ nope  failed  stdio: no-such-mcp-program\n    command not found: no-such-mcp-program" in body
        assert "● t  ready  stdio: " in body and "(offered from the next message)" in body
        assert "    mcp__t__echo" in body and "    prompt /mcp__t__review <path> [focus]" in body
        await pilot.press("escape")
        await send(pilot, "/mcp restart t")
        assert "MCP server t restarted: 9 tools, offered from the next message." in notes(app)
        await send(pilot, "/mcp restart nope")
        assert "MCP server nope failed again: command not found: no-such-mcp-program" in notes(app)


async def test_a_server_prompt_is_a_command_in_the_dropdown_and_sent_as_the_message(mcp_app, scripted_server):
    app = mcp_app(t=stdio_entry())
    async with app.run_test(size=WIDE) as pilot:
        await servers_started(pilot)
        app.prompt.text = "/mcp__t"
        app.prompt.move_cursor((0, len("/mcp__t")))
        await pilot.pause()
        assert [entry[0] for entry in app.prompt.completer._shown] == ["/mcp__t__review"]
        app.prompt.text = ""
        await send(pilot, "/mcp__t__review src/app.py")
        sent = "Please review src/app.py, looking for bugs."
        assert [m.text for m in app.chat.query(UserMessage)] == [sent]
        assert scripted_server.requests[-1]["messages"][-1] == {"role": "user", "content": sent}
        await send(pilot, "/mcp__t__review")
        assert "/mcp__t__review: path is required (<path> [focus])" in screen_text(app)
        await send(pilot, "/help")
        assert "/mcp__t__review <path> [focus]" in app.screen.body
