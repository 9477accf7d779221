"""UserPromptSubmit, SessionStart, PreCompact, PostCompact and Stop hooks, through the agent loop and litellm."""

from __future__ import annotations

from hermeslite.agent import events as ev
from hermeslite.agent.hooks import MAX_STOP_BLOCKS
from tests.agent.helpers import chat
from tests.hook_scripts import inputs, on, recording, replying, script
from tests.server import Reply
from tests.summary_requests import answer_summaries, is_summary_request, summary_instruction


def last_user(body: dict) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def notices(rec) -> list[str]:
    return [n.text for n in rec.of(ev.Notice)]


async def test_user_prompt_submit_exit_2_blocks_the_prompt_before_anything_is_sent(
    make_agent, scripted_server, tmp_path
):
    folder = tmp_path / "hooks"
    guard = script(folder, "guard.sh", 'grep -q password && { echo "do not paste passwords" >&2; exit 2; }; exit 0')
    agent, rec = make_agent(hooks=on("UserPromptSubmit", guard))
    finished = await agent.run_turn("my password is hunter2")
    assert not finished.ok and finished.reason == "blocked by a UserPromptSubmit hook: do not paste passwords"
    assert scripted_server.requests == []
    assert [m["role"] for m in agent.messages] == ["system"], "the prompt is not kept"
    assert "A UserPromptSubmit hook blocked this prompt: do not paste passwords" in notices(rec)
    scripted_server.enqueue(Reply.text("hi"))
    assert (await agent.run_turn("hello")).ok, "other prompts go through"


async def test_user_prompt_submit_json_block_and_continue_false_block_too(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    block = replying(folder, "block.sh", {"decision": "block", "reason": "read the policy first"})
    halt = replying(folder, "halt.sh", {"continue": False, "stopReason": "maintenance window"})
    agent, _ = make_agent(hooks=on("UserPromptSubmit", block, halt))
    finished = await agent.run_turn("deploy")
    assert finished.reason == "blocked by a UserPromptSubmit hook: read the policy first\nmaintenance window"
    assert scripted_server.requests == []


async def test_user_prompt_submit_adds_context_the_model_reads(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    plain = script(folder, "plain.sh", "cat > /dev/null; echo 'Sprint goal: ship the importer'")
    as_json = replying(
        folder,
        "json.sh",
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "On call: Ana"}},
    )
    seen = recording(folder, "seen")
    agent, _ = make_agent(hooks=on("UserPromptSubmit", plain, as_json, seen))
    scripted_server.enqueue(Reply.text("ok"))
    assert (await agent.run_turn("what next?")).ok
    assert last_user(scripted_server.requests[0]) == (
        "what next?\n\n[from a UserPromptSubmit hook]\nSprint goal: ship the importer\nOn call: Ana"
    )
    [sent] = inputs(folder, "seen")
    assert sent["hook_event_name"] == "UserPromptSubmit" and sent["prompt"] == "what next?"


async def test_session_start_context_rides_on_the_first_prompt_only(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    seen = recording(folder, "seen", then="echo 'branch: feature/hooks'")
    agent, _ = make_agent(hooks=on("SessionStart", seen, matcher="startup"))
    scripted_server.enqueue(Reply.text("one"), Reply.text("two"))
    assert (await agent.run_turn("first")).ok
    assert (await agent.run_turn("second")).ok
    assert last_user(scripted_server.requests[0]) == "first\n\n[from a SessionStart hook]\nbranch: feature/hooks"
    assert last_user(scripted_server.requests[1]) == "second"
    [sent] = inputs(folder, "seen")
    assert sent["source"] == "startup" and sent["model"] == "openai/test-model"
    assert sent["session_id"] == agent.session_id


async def test_session_start_on_a_resumed_session_says_resume(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    seen = recording(folder, "seen")
    first, _ = make_agent(hooks=on("SessionStart", seen))
    scripted_server.enqueue(Reply.text("one"), Reply.text("two"))
    assert (await first.run_turn("first")).ok
    make_agent.store.release(first.session_id)
    again, _ = make_agent(hooks=on("SessionStart", seen), session_id=first.session_id)
    assert (await again.run_turn("again")).ok
    assert [sent["source"] for sent in inputs(folder, "seen")] == ["startup", "resume"]


async def test_session_start_context_waits_for_a_prompt_that_gets_through(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    start = script(folder, "start.sh", "echo 'tests: pytest -q'")
    once = script(folder, "once.sh", f'[ -e "{folder}/blocked" ] && exit 0; touch "{folder}/blocked"; exit 2')
    agent, _ = make_agent(hooks={**on("SessionStart", start), **on("UserPromptSubmit", once)})
    assert not (await agent.run_turn("blocked one")).ok
    scripted_server.enqueue(Reply.text("ok"))
    assert (await agent.run_turn("let through")).ok
    assert last_user(scripted_server.requests[0]) == "let through\n\n[from a SessionStart hook]\ntests: pytest -q"


async def test_pre_compact_stops_a_manual_compress(make_agent, scripted_server, tmp_path):
    answer_summaries(scripted_server)
    folder = tmp_path / "hooks"
    stop = script(folder, "stop.sh", 'echo "mid-migration: no compaction now" >&2; exit 2')
    seen = recording(folder, "seen")
    agent, rec = make_agent(hooks=on("PreCompact", stop, seen, matcher="manual"))
    await chat(agent, 6)
    before, sent = list(agent.messages), len(scripted_server.requests)
    result = await agent.compress_now("schema")
    assert result.aborted and result.error == "stopped by a PreCompact hook: mid-migration: no compaction now"
    assert agent.messages == before and len(scripted_server.requests) == sent
    assert rec.of(ev.CompactionStarted) == [] and make_agent.store.compactions(agent.session_id) == []
    assert "A PreCompact hook stopped the manual compaction: mid-migration: no compaction now" in notices(rec)
    [hook_input] = inputs(folder, "seen")
    assert hook_input["trigger"] == "manual" and hook_input["custom_instructions"] == "schema"


async def test_pre_compact_adds_a_focus_the_summary_request_carries(make_agent, scripted_server, tmp_path):
    answer_summaries(scripted_server)
    focus = script(tmp_path / "hooks", "focus.sh", "cat > /dev/null; echo 'the payment retry rules'")
    agent, rec = make_agent(hooks=on("PreCompact", focus))
    await chat(agent, 6)
    result = await agent.compress_now("database schema")
    assert result.changed
    prompt = summary_instruction(next(b for b in scripted_server.requests if is_summary_request(b)))
    assert '"database schema; the payment retry rules"' in prompt
    assert rec.of(ev.CompactionStarted)[-1].focus == "database schema; the payment retry rules"


async def test_an_auto_compaction_runs_pre_compact_with_auto_and_post_compact_gets_the_summary(
    make_agent, scripted_server, tmp_path
):
    answer_summaries(scripted_server)
    folder = tmp_path / "hooks"
    before, after = recording(folder, "before"), recording(folder, "after")
    manual_only = script(folder, "manual.sh", "exit 2")
    hooks = {
        "PreCompact": [
            {"matcher": "auto", "hooks": [{"command": before}]},
            *on("PreCompact", manual_only, matcher="manual")["PreCompact"],
        ],
        **on("PostCompact", after),
    }
    agent, rec = make_agent(context_window=12_000, hooks=hooks)
    await chat(agent, 24)
    finished = rec.of(ev.CompactionFinished)
    assert finished and finished[0].trigger == "preflight"
    assert [sent["trigger"] for sent in inputs(folder, "before")][:1] == ["auto"]
    compacted = inputs(folder, "after")[0]
    assert compacted["trigger"] == "auto" and compacted["compact_summary"] == finished[0].result.summary
    assert "## Active Task" in compacted["compact_summary"]


async def test_a_compress_that_changes_nothing_fires_no_post_compact(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    after = recording(folder, "after")
    agent, _ = make_agent(hooks=on("PostCompact", after))
    scripted_server.enqueue(Reply.text("hello"))
    assert (await agent.run_turn("hi")).ok
    result = await agent.compress_now()
    assert not result.changed
    assert inputs(folder, "after") == []


async def test_a_stop_hook_sends_the_model_back_once_then_lets_it_stop(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    seen = recording(
        folder,
        "seen",
        then=f'[ -e "{folder}/asked" ] && exit 0; touch "{folder}/asked"; echo "run the tests first" >&2; exit 2',
    )
    agent, rec = make_agent(hooks=on("Stop", seen))
    scripted_server.enqueue(Reply.text("all done"), Reply.text("tests pass, now done"))
    assert (await agent.run_turn("fix it")).ok
    assert len(scripted_server.requests) == 2
    assert last_user(scripted_server.requests[1]) == (
        "[a Stop hook asks you to go on before you end the turn]\nrun the tests first"
    )
    first, second = inputs(folder, "seen")
    assert (first["stop_hook_active"], first["last_assistant_message"]) == (False, "all done")
    assert (second["stop_hook_active"], second["last_assistant_message"]) == (True, "tests pass, now done")
    assert any(text.startswith("A Stop hook sends the model back to work") for text in notices(rec))


async def test_a_stop_hook_that_never_lets_go_is_bounded(make_agent, scripted_server, tmp_path):
    nag = script(tmp_path / "hooks", "nag.sh", 'echo "more" >&2; exit 2')
    agent, rec = make_agent(hooks=on("Stop", nag))
    assert (await agent.run_turn("go")).ok
    assert len(scripted_server.requests) == 1 + MAX_STOP_BLOCKS
    assert f"Stop hooks asked for more {MAX_STOP_BLOCKS} times in a row; the turn ends here." in notices(rec)
