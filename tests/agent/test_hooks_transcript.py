"""`transcript_path`: the session as JSONL, current when each hook runs, through the agent loop and litellm.

The hooks here copy the file they are pointed at (by the JSON field and by
HERMESLITE_TRANSCRIPT_PATH) at the moment they run, so each check reads what a
user's script would have read then.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from hermeslite.agent import events as ev
from hermeslite.agent import rewind
from hermeslite.context.secret_calls import masked_strings
from hermeslite.paths import data_dir
from hermeslite.store.hook_transcript import transcript_file
from tests.agent.helpers import chat
from tests.hook_scripts import inputs, on, recording, script
from tests.server import Reply
from tests.summary_requests import answer_summaries

TOKEN = "ghp_" + "a1B2c3D4e5" * 4  # a GitHub token, as the redaction knows it


def copying(folder: Path, name: str) -> str:
    """A hook that keeps its input (`name.jsonl`) and a copy of the transcript file as it was then
    (`name-0.jsonl`, `name-1.jsonl`, ...), and checks the env variable names the same file."""
    body = f"""input=$(cat)
echo "$input" >> "{folder}/{name}.jsonl"
n=$(ls "{folder}" | grep -c "^{name}-[0-9]*\\.jsonl$")
cp "$HERMESLITE_TRANSCRIPT_PATH" "{folder}/{name}-$n.jsonl"
echo "$HERMESLITE_TRANSCRIPT_PATH" >> "{folder}/{name}.env"
exit 0"""
    return script(folder, f"{name}.sh", body)


def copies(folder: Path, name: str) -> list[list[dict[str, Any]]]:
    found = sorted(folder.glob(f"{name}-*.jsonl"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    return [[json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()] for p in found]


def env_paths(folder: Path, name: str) -> list[str]:
    return (folder / f"{name}.env").read_text(encoding="utf-8").split()


async def test_a_stop_hook_reads_the_final_reply_from_a_private_file(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    agent, _ = make_agent(hooks=on("Stop", copying(folder, "stop")))
    scripted_server.enqueue(Reply.text("the importer is fixed"), Reply.text("and tested"))
    assert (await agent.run_turn("fix the importer")).ok
    assert (await agent.run_turn("test it")).ok
    path = transcript_file(agent.session_id)
    assert path.parent == data_dir() / "hook-transcripts"
    sent = inputs(folder, "stop")
    assert [s["transcript_path"] for s in sent] == [str(path)] * 2 == env_paths(folder, "stop")
    first, second = copies(folder, "stop")
    assert first[-1] == {"role": "assistant", "content": "the importer is fixed"}
    assert second[-1] == {"role": "assistant", "content": "and tested"}
    assert second[: len(first)] == first, "what the file held stays; the new turn is added after it"
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user", "assistant"]
    assert second == agent.messages
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


async def test_new_messages_are_appended_and_a_compaction_rewrites_the_file(make_agent, scripted_server, tmp_path):
    answer_summaries(scripted_server)
    folder = tmp_path / "hooks"
    inode = script(
        folder, "inode.sh", f'cat > /dev/null; stat -c %i "$HERMESLITE_TRANSCRIPT_PATH" >> "{folder}/inodes"'
    )
    hooks = on("Stop", inode) | on("PreCompact", copying(folder, "pre")) | on("PostCompact", copying(folder, "post"))
    agent, _ = make_agent(hooks=hooks)
    await chat(agent, 6)
    before = list(agent.messages)
    assert (await agent.compress_now()).changed
    after = list(agent.messages)
    assert len(after) < len(before)
    scripted_server.enqueue(Reply.text("after the compaction"))
    assert (await agent.run_turn("go on")).ok
    [pre], [post] = copies(folder, "pre"), copies(folder, "post")
    assert pre == before, "PreCompact reads the transcript the compaction is about to rewrite"
    assert post == after, "PostCompact reads the rewritten transcript, not the old one with more lines"
    assert [s["trigger"] for s in inputs(folder, "post")] == ["manual"]
    inodes = (folder / "inodes").read_text(encoding="utf-8").split()
    assert len(inodes) == 7
    assert len(set(inodes[:6])) == 1, "turns append to the same file"
    assert inodes[6] != inodes[5], "after the compaction the file was swapped for a whole new one"
    lines = transcript_file(agent.session_id).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == agent.messages


async def test_secrets_in_a_tool_call_and_its_output_are_masked_as_the_store_keeps_them(
    make_agent, scripted_server, tmp_path
):
    folder = tmp_path / "hooks"
    agent, _ = make_agent(hooks=on("Stop", copying(folder, "stop")))
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": f"echo deploy with {TOKEN}"})]), Reply.text("deployed")
    )
    assert (await agent.run_turn("deploy")).ok
    text = transcript_file(agent.session_id).read_text(encoding="utf-8")
    assert TOKEN[8:] not in text
    stored = make_agent.store.open_transcript(agent.session_id).messages
    assert [json.loads(line) for line in text.splitlines()] == masked_strings(stored)
    call, output = stored[2], stored[3]
    assert TOKEN[8:] not in json.dumps(call) and TOKEN[8:] not in json.dumps(output), "the store masked both"
    assert "echo deploy with ghp_" in json.dumps(call) and "deploy with ghp_" in output["content"]


async def test_a_user_typed_secret_is_masked_in_the_file(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    agent, _ = make_agent(hooks=on("Stop", copying(folder, "stop")))
    scripted_server.enqueue(Reply.text("noted"))
    assert (await agent.run_turn(f"my token is {TOKEN}")).ok
    assert TOKEN[8:] not in transcript_file(agent.session_id).read_text(encoding="utf-8")


async def test_no_hooks_no_file(make_agent, scripted_server, tmp_path):
    agent, _ = make_agent()
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "echo hi"})]), Reply.text("done"))
    assert (await agent.run_turn("say hi")).ok
    assert not transcript_file(agent.session_id).exists()
    assert not (data_dir() / "hook-transcripts").exists()


async def test_the_file_goes_with_its_session(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    agent, _ = make_agent(hooks=on("Stop", copying(folder, "stop")))
    scripted_server.enqueue(Reply.text("hi"))
    assert (await agent.run_turn("hello")).ok
    path = transcript_file(agent.session_id)
    assert path.exists()
    assert agent.saver.delete()
    assert not path.exists()
    assert os.listdir(path.parent) == []


async def test_after_a_rewind_the_file_holds_the_transcript_that_goes_on(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    agent, _ = make_agent(hooks=on("Stop", copying(folder, "stop")))
    scripted_server.enqueue(Reply.text("one"), Reply.text("two"), Reply.text("three"))
    assert (await agent.run_turn("first")).ok
    assert (await agent.run_turn("second")).ok
    assert (await rewind.apply(agent, await rewind.preview_rewind(agent, 2, rewind.CHAT))).done
    assert (await agent.run_turn("third")).ok
    last = copies(folder, "stop")[-1]
    assert [m["content"] for m in last[1:]] == ["first", "one", "third", "three"]
    assert last == agent.messages


async def test_pre_tool_use_finds_the_call_it_is_asked_about_on_the_last_line(make_agent, scripted_server, tmp_path):
    folder = tmp_path / "hooks"
    agent, _ = make_agent(hooks=on("PreToolUse", copying(folder, "pre"), matcher="terminal"))
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "echo hi"})]), Reply.text("done"))
    assert (await agent.run_turn("say hi")).ok
    [seen] = copies(folder, "pre")
    [call] = seen[-1]["tool_calls"]
    assert call["id"] == inputs(folder, "pre")[0]["tool_use_id"]
    assert json.loads(call["function"]["arguments"]) == {"command": "echo hi"}


async def test_a_file_that_cannot_be_written_is_one_warning_and_the_hook_still_runs(
    make_agent, scripted_server, tmp_path
):
    folder = tmp_path / "hooks"
    blocker = data_dir() / "hook-transcripts"
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("not a folder", encoding="utf-8")
    agent, rec = make_agent(hooks=on("Stop", recording(folder, "stop")))
    scripted_server.enqueue(Reply.text("hi"))
    assert (await agent.run_turn("hello")).ok
    [sent] = inputs(folder, "stop")
    assert sent["transcript_path"] == str(transcript_file(agent.session_id))
    warnings = [n.text for n in rec.of(ev.Notice) if n.severity == "warning"]
    assert len(warnings) == 1 and warnings[0].startswith("The transcript file for hooks could not be written: ")
