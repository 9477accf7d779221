"""MCP tools through the real agent loop and litellm, against the scripted OpenAI-compatible server
(and the fake Anthropic one for images): offered in a stable order, called, approved or refused,
their results capped and archived, failures told once, and a server that gets ready later joining
at the next turn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent import mcp_commands
from hermeslite.agent.breakdown import context_breakdown
from hermeslite.agent.factory import build_agent, start_mcp
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.landlock import abi_version
from hermeslite.tools.mcp.status import State, Unavailable
from tests.envelope import unwrapped
from tests.fake_anthropic import FakeAnthropic
from tests.fake_anthropic import Reply as AnthropicReply
from tests.mcp.conftest import mcp_settings
from tests.mcp_servers import stdio_entry
from tests.server import Reply

BUILT_IN = ["terminal", "read_file", "write_file", "patch", "search_files", "memory", "todo", "recall", "web_fetch"]


def tool_names(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


async def test_mcp_tools_follow_the_built_in_ones_by_name_are_called_and_answered(mcp_agent, scripted_server):
    agent, _ = mcp_agent(
        {
            "t": stdio_entry(approved_tools=["echo"], read_only_tools=["echo", "big"]),
            "a": stdio_entry(tools=["add"], approved_tools=["add"]),
        }
    )
    scripted_server.enqueue(
        Reply.tool_calls([("mcp__t__echo", {"text": "ping"}), ("mcp__a__add", {"a": 2, "b": "3"})]),
        Reply.text("done"),
    )
    finished = await agent.run_turn("use the tools")
    assert finished.ok
    first, second = scripted_server.requests
    names = tool_names(first)
    assert names[: len(BUILT_IN)] == BUILT_IN
    assert names[len(BUILT_IN) :] == sorted(names[len(BUILT_IN) :])
    assert names[len(BUILT_IN)] == "mcp__a__add" and "mcp__t__echo" in names and "mcp__a__echo" not in names
    echo = next(tool["function"] for tool in first["tools"] if tool["function"]["name"] == "mcp__t__echo")
    assert echo["description"] == "Return the text unchanged."
    assert echo["parameters"]["properties"]["text"]["type"] == "string"
    assert second["tools"] == first["tools"]  # one set for the whole turn
    results = [m for m in second["messages"] if m["role"] == "tool"]
    assert [(m["name"], unwrapped(m["content"])) for m in results] == [("mcp__t__echo", "ping"), ("mcp__a__add", "5")]
    read_only = sorted(tool.name for tool in agent.deps.registry.offered if tool.read_only)
    assert read_only == ["mcp__t__big", "mcp__t__echo"]  # what a read-only mode would offer


async def test_headless_refuses_an_unapproved_tool_says_how_to_allow_it_and_it_never_runs(
    mcp_agent, scripted_server, workdir
):
    agent, _ = mcp_agent({"t": stdio_entry()})
    flag = workdir / "flag"
    scripted_server.enqueue(Reply.tool_calls([("mcp__t__touch", {"path": str(flag)})]), Reply.text("ok"))
    await agent.run_turn("make the flag")
    assert unwrapped(scripted_server.requests[1]["messages"][-1]["content"]) == (
        "error: denied (mcp__t__touch is a tool of the MCP server t): no one can approve this call in headless "
        'mode; to permit it, add "touch" to mcp_servers.t.approved_tools in the config file, or set '
        "tools.approval: allow"
    )
    assert not flag.exists()


async def test_approval_allow_runs_any_tool_and_deny_refuses_even_an_approved_one(mcp_agent, scripted_server, workdir):
    allowed, _ = mcp_agent({"t": stdio_entry()}, approval="allow")
    scripted_server.enqueue(Reply.tool_calls([("mcp__t__touch", {"path": str(workdir / "a")})]), Reply.text("ok"))
    await allowed.run_turn("make a")
    assert (workdir / "a").exists()
    denied, _ = mcp_agent({"t": stdio_entry(approved_tools=["echo"])}, approval="deny")
    scripted_server.enqueue(Reply.tool_calls([("mcp__t__touch", {"path": str(workdir / "b")})]), Reply.text("ok"))
    await denied.run_turn("make b")
    assert unwrapped(scripted_server.requests[-1]["messages"][-1]["content"]).startswith(
        "error: refused (mcp__t__touch is a tool of the MCP server t): the approval policy is deny"
    )
    assert not (workdir / "b").exists()


async def test_a_result_over_the_output_limit_is_capped_and_recall_brings_back_the_rest(mcp_agent, scripted_server):
    agent, _ = mcp_agent({"t": stdio_entry(approved_tools=["big"])}, output_limit=2_000)
    scripted_server.enqueue(Reply.tool_calls([("mcp__t__big", {"chars": 10_000_000})]), Reply.text("a big one"))
    await agent.run_turn("fetch it")
    sent = unwrapped(scripted_server.requests[1]["messages"][-1]["content"])
    assert len(sent) <= 2_000 and sent.startswith("BEGIN-OF-BIG") and "chars omitted" in sent
    assert "END-OF-BIG unique-tail-marker" in sent
    ref = re.search(r"the whole output is in the session archive under recall id (r[0-9a-f]{10})", sent)
    assert ref is not None and "10,000,0" in sent
    scripted_server.enqueue(Reply.tool_calls([("recall", {"query": "unique tail marker"})]), Reply.text("found"))
    await agent.run_turn("find its end")
    found = unwrapped(scripted_server.requests[-1]["messages"][-1]["content"])
    assert ref.group(1) in found and "unique-tail-marker" in found and "mcp__t__big" in found


async def test_an_error_result_and_a_structured_one_reach_the_model(mcp_agent, scripted_server):
    agent, recorder = mcp_agent({"t": stdio_entry(approved_tools=["fail", "structured"])})
    scripted_server.enqueue(
        Reply.tool_calls([("mcp__t__fail", {"why": "quota"}), ("mcp__t__structured", {})]), Reply.text("ok")
    )
    await agent.run_turn("try")
    results = [unwrapped(m["content"]) for m in scripted_server.requests[1]["messages"] if m["role"] == "tool"]
    assert results == ["error: could not do it: quota", '{\n  "temperature": 21.5,\n  "unit": "celsius"\n}']
    finished = recorder.of(ev.ToolFinished)
    assert [event.is_error for event in finished] == [True, False]


async def test_an_image_is_named_for_a_model_that_takes_no_images_in_tool_results(mcp_agent, scripted_server):
    agent, _ = mcp_agent({"t": stdio_entry(approved_tools=["picture"])})
    scripted_server.enqueue(Reply.tool_calls([("mcp__t__picture", {})]), Reply.text("ok"))
    await agent.run_turn("show me")
    assert unwrapped(scripted_server.requests[1]["messages"][-1]["content"]) == (
        "a one-pixel picture\n[image 1: image/png, 72 B]\n"
        "[1 image not shown: this model takes no images in tool results]"
    )


async def test_claude_gets_the_image_inside_the_tool_result(tmp_path: Path, workdir: Path, monkeypatch):
    monkeypatch.setenv("HERMESLITE_TEST_ANTHROPIC_KEY", "test-key")
    with FakeAnthropic() as server:
        server.enqueue(AnthropicReply.tool_use([("mcp__t__picture", {})]), AnthropicReply.say("a dot"))
        model = ModelConfig(
            name="anthropic/claude-sonnet-4-5", api_base=server.base_url, api_key_env="HERMESLITE_TEST_ANTHROPIC_KEY"
        )
        settings = mcp_settings(model, tmp_path, {"t": stdio_entry(approved_tools=["picture"])})
        mcp = start_mcp(settings, workdir)
        assert mcp is not None
        store = SessionStore(tmp_path / "sessions.db")
        try:
            agent = build_agent(
                settings, cwd=workdir, interactive=False, llm=LiteLLMClient(model, max_retries=0), store=store, mcp=mcp
            )
            assert (await agent.run_turn("show me")).ok
        finally:
            mcp.close()
            store.close()
        assert not server.rejections
        blocks = server.exchanges[-1].body["messages"][-1]["content"]
        result = next(block for block in blocks if block["type"] == "tool_result")
        kinds = [part["type"] for part in result["content"]]  # the text and the image, inside the envelope
        assert (
            kinds == ["text", "text", "image", "text"] and result["content"][2]["source"]["media_type"] == "image/png"
        )
        assert result["content"][0]["text"] == "<tool_output>" and result["content"][3]["text"] == "</tool_output>"


async def test_a_failed_server_is_told_once_at_the_start_of_a_turn(mcp_agent, scripted_server):
    agent, recorder = mcp_agent({"nope": {"command": "no-such-mcp-program"}, "t": stdio_entry()})
    await agent.run_turn("one")
    await agent.run_turn("two")
    notices = [n.text for n in recorder.of(ev.Notice) if "MCP" in n.text]
    assert notices == ["MCP server nope failed: command not found: no-such-mcp-program"]
    assert "mcp__t__echo" in tool_names(scripted_server.requests[-1])


async def test_in_the_app_a_server_ready_later_joins_at_the_next_turn(mcp_agent, scripted_server, tmp_path):
    gate = tmp_path / "go"
    agent, _ = mcp_agent({"late": stdio_entry("--wait-for", str(gate))}, interactive=True)
    await agent.run_turn("before")
    assert not any(name.startswith("mcp__") for name in tool_names(scripted_server.requests[-1]))
    gate.touch()
    await agent.deps.mcp.servers.wait_started()
    assert [r.status.state for r in mcp_commands.server_reports(agent)] == [State.READY]
    assert not mcp_commands.server_reports(agent)[0].offered  # ready, but this turn's set is fixed
    await agent.run_turn("after")
    assert "mcp__late__echo" in tool_names(scripted_server.requests[-1])
    assert mcp_commands.server_reports(agent)[0].offered


async def test_context_has_a_row_per_server_and_the_meter_counts_its_schemas(mcp_agent, scripted_server):
    agent, _ = mcp_agent({"t": stdio_entry("--tools", "5")})
    before = agent.schema_tokens()
    await agent.run_turn("hello")
    report = mcp_commands.server_reports(agent)[0]
    assert report.offered and len(report.tools) == 9 + 5 and report.tokens > 500  # its own tools and 5 generated
    parts = {part.name: part.tokens for part in context_breakdown(agent).parts}
    scale = agent.request_size().calibration.scale
    assert parts["mcp t"] == scale(report.tokens)
    assert agent.schema_tokens() > before + report.tokens * 0.9  # the meter counts them too


async def test_a_prompt_becomes_the_message_and_a_missing_argument_is_one_line(mcp_agent, scripted_server):
    agent, _ = mcp_agent({"t": stdio_entry()})
    await agent.run_turn("hello")
    assert [(p.name, p.args, p.server) for p in mcp_commands.prompt_commands(agent)] == [
        ("mcp__t__review", "<path> [focus]", "t")
    ]
    text = await mcp_commands.prompt_text(agent, "mcp__t__review", "src/app.py 'race conditions'")
    assert text == "Please review src/app.py, looking for race conditions."
    assert await mcp_commands.prompt_text(agent, "mcp__t__review", "focus=style path=a.py") == (
        "Please review a.py, looking for style."
    )
    try:
        await mcp_commands.prompt_text(agent, "mcp__t__review", "")
    except Unavailable as exc:
        assert str(exc) == "path is required (<path> [focus])"
    else:
        raise AssertionError("a missing argument must be refused")


async def test_a_streamable_http_servers_tool_through_the_loop(mcp_agent, scripted_server, http_server, monkeypatch):
    monkeypatch.setenv("HERMESLITE_TEST_TOKEN", "s3cret-token-value")
    auth = {"Authorization": "Bearer ${HERMESLITE_TEST_TOKEN}"}
    agent, _ = mcp_agent({"web": {"url": http_server.url, "headers": auth, "approved_tools": ["echo"]}})
    scripted_server.enqueue(Reply.tool_calls([("mcp__web__echo", {"text": "over http"})]), Reply.text("done"))
    assert (await agent.run_turn("call it")).ok
    assert tool_names(scripted_server.requests[0])[len(BUILT_IN) :] == ["mcp__web__big", "mcp__web__echo"]
    assert unwrapped(scripted_server.requests[1]["messages"][-1]["content"]) == "over http"


@pytest.mark.skipif(abi_version() < 1, reason="plan mode needs Landlock")
async def test_plan_mode_offers_only_the_mcp_tools_marked_read_only_and_refuses_the_others(
    mcp_agent, scripted_server, workdir
):
    agent, _ = mcp_agent({"t": stdio_entry(approved_tools=["echo", "touch"], read_only_tools=["echo"])})
    agent.set_mode("plan")
    flag = workdir / "flag"
    scripted_server.enqueue(
        Reply.tool_calls([("mcp__t__echo", {"text": "ping"}), ("mcp__t__touch", {"path": str(flag)})]),
        Reply.text("done"),
    )
    await agent.run_turn("look, then touch")
    first, second = scripted_server.requests
    names = tool_names(first)
    assert "mcp__t__echo" in names and "mcp__t__touch" not in names
    assert not {"write_file", "patch"} & set(names)
    results = {m["name"]: unwrapped(m["content"]) for m in second["messages"] if m["role"] == "tool"}
    assert results["mcp__t__echo"] == "ping"
    assert results["mcp__t__touch"].startswith("error: mcp__t__touch is not available in plan mode")
    assert not flag.exists()
