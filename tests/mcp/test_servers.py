"""The MCP servers as the client runs them: real stdio and HTTP servers written with the SDK, and a
published one. Each failure ends as one line in the server's status and in the news, and the others
go on."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from hermeslite.tools.mcp.status import State, Unavailable
from tests.mcp_servers import BROKEN_SERVER, stdio_entry


def status_of(servers, name: str):
    return next(s for s in servers.statuses() if s.name == name)


async def test_a_stdio_server_lists_its_tools_by_name_and_answers_every_kind_of_content(start_servers):
    servers = start_servers(t=stdio_entry())
    await servers.wait_started()
    status = status_of(servers, "t")
    assert status.state is State.READY and status.reason == ""
    names = [tool.name for tool in status.tools]
    assert names == sorted(names) and {"echo", "picture", "structured", "fail", "big"} <= set(names)
    assert [p.name for p in status.prompts] == ["review"]

    echoed = await servers.call_tool("t", "echo", {"text": "hello"})
    assert (echoed.text, echoed.is_error, echoed.images) == ("hello", False, ())
    picture = await servers.call_tool("t", "picture", {})
    assert picture.text == "a one-pixel picture\n[image 1: image/png, 72 B]"
    assert picture.images[0].part()["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")
    structured = await servers.call_tool("t", "structured", {})
    assert structured.text == '{\n  "temperature": 21.5,\n  "unit": "celsius"\n}'
    failed = await servers.call_tool("t", "fail", {"why": "no disk"})
    assert (failed.text, failed.is_error) == ("could not do it: no disk", True)
    assert await servers.get_prompt("t", "review", {"path": "a.py"}) == "Please review a.py, looking for bugs."
    assert servers.take_news() == []


async def test_a_command_that_does_not_exist_is_one_line_and_the_other_servers_go_on(start_servers):
    servers = start_servers(nope={"command": "no-such-mcp-program"}, t=stdio_entry())
    await servers.wait_started()
    assert status_of(servers, "nope").state is State.FAILED
    assert status_of(servers, "nope").reason == "command not found: no-such-mcp-program"
    assert status_of(servers, "t").state is State.READY
    assert servers.take_news() == ["MCP server nope failed: command not found: no-such-mcp-program"]
    assert servers.take_news() == [], "each failure is told once"
    with pytest.raises(Unavailable, match=r"^MCP server nope is not running \(command not found"):
        await servers.call_tool("nope", "x", {})


async def test_a_server_that_exits_at_start_says_how_it_ended_and_what_it_wrote(start_servers):
    code = "import sys; sys.stderr.write('GITHUB_TOKEN is missing\\n'); sys.exit(2)"
    servers = start_servers(gone={"command": sys.executable, "args": ["-c", code]})
    await servers.wait_started()
    status = status_of(servers, "gone")
    assert status.state is State.FAILED
    assert status.reason == "the server exited with status 2; it last wrote: GITHUB_TOKEN is missing"
    assert Path(status.log).read_text().startswith("GITHUB_TOKEN is missing\n")


async def test_a_server_that_never_answers_fails_at_its_startup_timeout(start_servers):
    servers = start_servers(mute={"command": "sleep", "args": ["3600"], "startup_timeout": 1})
    await servers.wait_started()
    status = status_of(servers, "mute")
    assert status.state is State.FAILED
    assert status.reason == "did not finish starting within 1 s (mcp_servers.mute.startup_timeout)"


async def test_a_server_that_crashes_mid_session_fails_the_call_and_is_told_once(start_servers):
    servers = start_servers(t=stdio_entry())
    await servers.wait_started()
    with pytest.raises(Unavailable) as crashed:
        await servers.call_tool("t", "crash", {})
    reason = "the server exited with status 3; it last wrote: crashing on purpose"
    assert str(crashed.value) == f"MCP server t is gone ({reason}); /mcp restart t starts it again"
    await servers.wait_started()
    assert status_of(servers, "t").state is State.FAILED and status_of(servers, "t").reason == reason
    assert servers.take_news() == [f"MCP server t failed: {reason}"]
    with pytest.raises(Unavailable, match=r"^MCP server t is not running \(the server exited with status 3"):
        await servers.call_tool("t", "echo", {"text": "x"})
    restarted = await servers.restart("t")
    assert restarted.state is State.READY and restarted.generation == 2
    assert (await servers.call_tool("t", "echo", {"text": "back"})).text == "back"


async def test_a_tool_with_an_invalid_schema_is_left_out_with_one_line(start_servers):
    servers = start_servers(b={"command": sys.executable, "args": [str(BROKEN_SERVER)]})
    await servers.wait_started()
    status = status_of(servers, "b")
    assert status.state is State.READY and [tool.name for tool in status.tools] == ["good"]
    line = (
        "tool bad_schema skipped: its input schema is invalid ('nonsense' is not valid under any of the given schemas)"
    )
    assert status.skipped == (line,)
    assert servers.take_news() == [f"MCP server b: {line}"]
    assert (await servers.call_tool("b", "good", {})).text == "good answered"


async def test_a_call_past_its_timeout_fails_and_the_server_stays_up(start_servers):
    servers = start_servers(t=stdio_entry(timeout=1))
    await servers.wait_started()
    with pytest.raises(Unavailable) as late:
        await servers.call_tool("t", "slow", {"seconds": 60})
    assert str(late.value) == "MCP server t did not answer slow within 1 s (mcp_servers.t.timeout)"
    assert status_of(servers, "t").last_error == str(late.value)
    assert (await servers.call_tool("t", "echo", {"text": "still here"})).text == "still here"


async def test_a_call_cut_short_by_a_restart_fails_without_undoing_the_restart(start_servers, tmp_path):
    """The old connection's call fails after the new connection is up: the status stays the new one's."""
    servers = start_servers(t=stdio_entry())
    await servers.wait_started()
    arrived = tmp_path / "arrived"
    call = asyncio.ensure_future(servers.call_tool("t", "slow", {"seconds": 30, "mark": str(arrived)}))
    while not arrived.exists():
        await asyncio.sleep(0.02)
    restarted = await servers.restart("t")
    with pytest.raises(Unavailable, match=r"^MCP server t is gone"):
        await call
    assert restarted.generation == 2
    assert (status_of(servers, "t").state, status_of(servers, "t").generation) == (State.READY, 2)


def test_a_status_from_a_replaced_connection_never_overwrites_the_new_ones(workdir):
    """However the old connection's last words and the new one's interleave (a late call failure)."""
    from dataclasses import replace

    from hermeslite.tools.mcp.config import McpServerConfig
    from hermeslite.tools.mcp.manager import McpServers

    servers = McpServers({"t": McpServerConfig(command="x")}, workdir)
    old = replace(servers.statuses()[0], state=State.STOPPED, generation=1, last_error="late")
    new = replace(servers.statuses()[0], state=State.READY, generation=2)
    servers._publish(new)
    servers._publish(old)
    assert servers.statuses() == [new]


async def test_a_ten_megabyte_result_arrives_whole(start_servers):
    servers = start_servers(t=stdio_entry())
    await servers.wait_started()
    result = await servers.call_tool("t", "big", {"chars": 10_000_000})
    assert len(result.text) == 10_000_000 - 40 + len("BEGIN-OF-BIG\n\nEND-OF-BIG unique-tail-marker")
    assert result.text.endswith("END-OF-BIG unique-tail-marker")


async def test_tools_allowed_and_excluded_by_glob(start_servers):
    servers = start_servers(t=stdio_entry(tools=["e*", "f*", "big"], exclude_tools=["fail"]))
    await servers.wait_started()
    assert [tool.name for tool in status_of(servers, "t").tools] == ["big", "echo"]


async def test_an_unset_variable_fails_the_server_naming_it_never_a_value(start_servers, monkeypatch):
    monkeypatch.delenv("HERMESLITE_TEST_UNSET", raising=False)
    servers = start_servers(t=stdio_entry(env={"TOKEN": "${HERMESLITE_TEST_UNSET}"}))
    await servers.wait_started()
    assert status_of(servers, "t").reason == (
        "mcp_servers.t.env.TOKEN uses ${HERMESLITE_TEST_UNSET}, which is not set in the environment"
    )


async def test_a_variable_reaches_the_server_and_a_disabled_server_is_not_started(start_servers, monkeypatch):
    monkeypatch.setenv("HERMESLITE_TEST_VALUE", "from-the-environment")
    code = "import os, sys; sys.stderr.write(os.environ['SEEN'] + '\\n'); sys.exit(1)"
    servers = start_servers(
        env={"command": sys.executable, "args": ["-c", code], "env": {"SEEN": "${HERMESLITE_TEST_VALUE}"}},
        off=stdio_entry(enabled=False),
    )
    await servers.wait_started()
    assert status_of(servers, "env").reason.endswith("it last wrote: from-the-environment")
    assert (status_of(servers, "off").state, status_of(servers, "off").reason) == (
        State.STOPPED,
        "disabled (enabled: false)",
    )
    with pytest.raises(Unavailable, match=r"^MCP server off is disabled in the config \(enabled: false\)$"):
        await servers.restart("off")


async def test_an_http_server_with_its_token_from_the_environment(start_servers, http_server, monkeypatch):
    monkeypatch.setenv("HERMESLITE_TEST_TOKEN", "s3cret-token-value")
    servers = start_servers(
        web={"url": http_server.url, "headers": {"Authorization": "Bearer ${HERMESLITE_TEST_TOKEN}"}}
    )
    await servers.wait_started()
    status = status_of(servers, "web")
    assert status.state is State.READY and [tool.name for tool in status.tools] == ["big", "echo"]
    assert (await servers.call_tool("web", "echo", {"text": "over http"})).text == "over http"
    big = await servers.call_tool("web", "big", {"chars": 10_000_000})
    assert len(big.text) == 10_000_000 and big.text.endswith("END-OF-BIG")
    assert await servers.get_prompt("web", "greet", {"name": "Ann"}) == "Say hello to Ann."


async def test_http_401_and_500_are_one_line_each_without_the_token(start_servers, http_server):
    from tests.mcp_servers.http_server import HttpMcpServer

    with HttpMcpServer() as broken:
        broken.fail_with = 500
        servers = start_servers(
            denied={"url": http_server.url, "headers": {"Authorization": "Bearer wrong-token-value"}},
            down={"url": broken.url},
        )
        await servers.wait_started()
        denied, down = status_of(servers, "denied"), status_of(servers, "down")
    assert denied.reason == f"HTTP 401 Unauthorized from {http_server.url} (check mcp_servers.denied.headers)"
    assert down.reason == f"HTTP 500 Internal Server Error from {broken.url}"
    news = servers.take_news()
    assert len(news) == 2 and not any("wrong-token-value" in line for line in news)
    assert "Bearer wrong-token-value" in http_server.seen_authorization  # it was sent, never shown


async def test_a_published_server_from_the_registry_runs(start_servers):
    program = Path(sys.executable).with_name("mcp-server-time")
    servers = start_servers(time={"command": str(program), "args": ["--local-timezone", "UTC"]})
    await servers.wait_started()
    status = status_of(servers, "time")
    assert status.state is State.READY, status.reason
    assert [tool.name for tool in status.tools] == ["convert_time", "get_current_time"]
    converted = await servers.call_tool(
        "time", "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    )
    assert '"time_difference": "+9.0h"' in converted.text


async def test_close_stops_every_server_and_what_it_left_in_its_group(start_servers, tmp_path):
    pids = tmp_path / "pids"
    servers = start_servers(t=stdio_entry("--children", str(pids)))
    await servers.wait_started()
    server, grouped, alone = map(int, pids.read_text().split())
    try:
        servers.close()
        assert status_of(servers, "t").state is State.STOPPED
        assert not alive(server) and not alive(grouped)
    finally:  # one that left the group lives until hermeslite exits (killed by its mark then)
        os.kill(alone, signal.SIGKILL)


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
