"""/undo, /rewind and /diff through the real agent loop and litellm, against real files.

The scripted model edits a project with write_file, patch and terminal commands (sed -i, mv, rm); every
restore must give back the exact bytes and modes of each file, and the project's own .git must be
byte-identical at every step.
"""

from __future__ import annotations

import copy
import os
from dataclasses import replace
from pathlib import Path

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent import rewind
from hermeslite.agent.factory import build_agent
from hermeslite.config import Settings
from hermeslite.context.messages import is_summary, strip_private
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.hooks.settings import HooksConfig
from tests.builders import FILLER, assert_valid
from tests.checkpoint_files import dir_hash, git_project, plain_project, tree_state, write
from tests.recorder import Recorder
from tests.server import MODEL, Reply
from tests.summary_requests import answer_summaries


@pytest.fixture
def build(scripted_server, tmp_path):
    """`build(project, **checkpoints)` -> (agent, recorder) working in `project`, on the scripted server."""
    store = SessionStore(tmp_path / "sessions.db")

    def make(project: Path, context_window: int = 100_000, hooks: dict | None = None, **checkpoints):
        base = Settings()
        settings = replace(
            base,
            model=ModelConfig(name=MODEL, api_base=scripted_server.base_url, context_window=context_window),
            memory=replace(base.memory, dir=str(tmp_path / "memory")),
            hooks=HooksConfig(**(hooks or {})),
            checkpoints=replace(base.checkpoints, **checkpoints),
        )
        llm = LiteLLMClient(settings.model, max_retries=0)
        agent = build_agent(settings, cwd=project, interactive=False, llm=llm, store=store)
        recorder = Recorder()
        agent.subscribe(recorder)
        return agent, recorder

    make.store = store
    return make


async def turn(agent, server, text: str, *calls) -> None:
    server.enqueue(Reply.tool_calls(list(calls)), Reply.text(f"done: {text}"))
    finished = await agent.run_turn(text)
    assert finished.ok
    results = [m for m in agent.messages if m.get("role") == "tool"][-len(calls) :]
    assert not any(r["content"].startswith("error") for r in results), results


async def three_turns(agent, server, project: Path) -> list[dict]:
    """Turn 1 writes files, turn 2 patches one, turn 3 runs sed -i, mv and rm; the tree after each."""
    states = [tree_state(project)]
    await turn(
        agent,
        server,
        "add a module",
        ("write_file", {"path": "src/util.py", "content": "def helper():\n    return 42\n"}),
        ("write_file", {"path": "notes.txt", "content": "rewritten by the agent\n"}),
    )
    states.append(tree_state(project))
    await turn(
        agent, server, "fix main", ("patch", {"path": "src/app.py", "old": "def main():", "new": "def main(argv):"})
    )
    states.append(tree_state(project))
    await turn(
        agent,
        server,
        "tidy up",
        ("terminal", {"command": "sed -i 's/agent/sed/' notes.txt && mv run.sh start.sh && rm secret.env"}),
    )
    states.append(tree_state(project))
    assert states[3] != states[2] != states[1] != states[0]
    assert "start.sh" in states[3] and "secret.env" not in states[3]
    return states


@pytest.mark.parametrize("kind", ["plain folder", "git repository"])
async def test_undo_and_each_rewind_choice_restore_exact_bytes_and_modes(build, scripted_server, tmp_path, kind):
    project = (git_project if kind == "git repository" else plain_project)(tmp_path / "proj")
    dot_git = project / ".git"
    git_before = dir_hash(dot_git) if dot_git.exists() else None
    agent, rec = build(project)
    states = await three_turns(agent, scripted_server, project)
    transcript_before_turn_3 = None

    undo = await rewind.preview_undo(agent)
    assert undo.turn == 3 and {c.path for c in undo.plan.changes} == {"notes.txt", "run.sh", "start.sh", "secret.env"}
    assert (await rewind.apply(agent, undo)).done
    assert tree_state(project) == states[2]  # bytes, modes (0600 secret.env, 0755 run.sh), links

    code = await rewind.preview_rewind(agent, 2, rewind.CODE)
    assert [c.path for c in code.plan.changes] == ["src/app.py"]
    report = await rewind.apply(agent, code)
    assert report.done and report.prompt is None
    assert tree_state(project) == states[1]
    assert len([m for m in agent.messages if m.get("role") == "user"]) == 3  # the conversation stayed

    user_turn_3 = next(i for i, m in enumerate(agent.messages) if m.get("content") == "tidy up")
    transcript_before_turn_3 = strip_private(agent.messages[1:user_turn_3])
    chat_only = await rewind.preview_rewind(agent, 3, rewind.CHAT)
    report = await rewind.apply(agent, chat_only)
    assert report.done and report.prompt == "tidy up"
    assert strip_private(agent.messages[1:]) == transcript_before_turn_3
    assert tree_state(project) == states[1]  # files untouched
    assert [t.number for t in rewind.turn_rows(agent)] == [1, 2]
    assert agent.deps.store.load_transcript(agent.session_id) == agent.messages

    both = await rewind.preview_rewind(agent, 1, rewind.BOTH)
    assert (await rewind.apply(agent, both)).done
    assert tree_state(project) == states[0]
    assert [m["role"] for m in agent.messages] == ["system"]
    assert rewind.turn_rows(agent) == []
    if git_before is not None:
        assert dir_hash(dot_git) == git_before
    assert not rec.of(ev.ErrorEvent)

    await turn(agent, scripted_server, "after the rewind", ("write_file", {"path": "again.txt", "content": "x\n"}))
    assert [t.number for t in rewind.turn_rows(agent)] == [1]  # numbering goes on from the rewind point


async def test_a_file_changed_by_hand_is_named_and_restored_only_when_allowed(build, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    agent, _ = build(project)
    original = (project / "notes.txt").read_bytes()
    await turn(agent, scripted_server, "edit", ("write_file", {"path": "notes.txt", "content": "agent\n"}))
    write(project / "notes.txt", "the user's own edit\n")

    preview = await rewind.preview_undo(agent)
    assert preview.hand_changed == ("notes.txt",)
    assert any(line.startswith(" ! notes.txt") for line in preview.lines())
    refused = await rewind.apply(agent, preview)
    assert not refused.done and "notes.txt" in refused.text
    assert (project / "notes.txt").read_text() == "the user's own edit\n"
    assert (await rewind.apply(agent, preview, overwrite=True)).done
    assert (project / "notes.txt").read_bytes() == original


async def test_a_hand_edit_between_turns_counts_as_the_users(build, scripted_server, tmp_path):
    """Turn 1 edits a.txt, the user edits it too, turn 2 writes b.txt: undoing turn 1 must ask about a.txt."""
    project = tmp_path / "proj"
    write(project / "a.txt", "start\n")
    agent, _ = build(project)
    await turn(agent, scripted_server, "one", ("write_file", {"path": "a.txt", "content": "agent\n"}))
    write(project / "a.txt", "user\n")
    await turn(agent, scripted_server, "two", ("write_file", {"path": "b.txt", "content": "b\n"}))
    assert (await rewind.apply(agent, await rewind.preview_undo(agent))).done  # turn 2: b.txt
    assert not (project / "b.txt").exists()
    second = await rewind.preview_undo(agent)
    assert second.turn == 1 and second.hand_changed == ("a.txt",)


async def test_rewinding_past_a_compaction_brings_back_the_archived_messages(build, scripted_server, tmp_path):
    answer_summaries(scripted_server)
    project = plain_project(tmp_path / "proj")
    agent, _ = build(project, context_window=16_000)
    for n in range(3):
        assert (await agent.run_turn(f"early turn {n}: {FILLER}")).ok
    before_turn_4 = copy.deepcopy(agent.messages)
    for n in range(3, 8):
        assert (await agent.run_turn(f"later turn {n}: {FILLER}")).ok
    result = await agent.compress_now()
    assert result.changed and not result.aborted
    assert any(is_summary(m) for m in agent.messages)
    kept = [str(m.get("content")) for m in agent.messages if not is_summary(m)]
    assert not any("early turn 2" in text for text in kept)  # compacted away

    preview = await rewind.preview_rewind(agent, 4, rewind.CHAT)
    assert preview.chat.from_archive > 0 and preview.chat.missing == 0
    assert (await rewind.apply(agent, preview)).done
    assert strip_private(agent.messages[1:]) == strip_private(before_turn_4[1:])
    assert not any(is_summary(m) for m in agent.messages)
    assert_valid(agent.messages)
    reloaded = agent.deps.store.load_transcript(agent.session_id)
    assert strip_private(reloaded) == strip_private(agent.messages)
    hits = agent.deps.store.search_archive(agent.session_id, "later turn 6")
    assert hits, "the messages the rewind took back stay findable in the archive"


async def test_without_git_one_line_says_checkpoints_are_off_and_the_session_goes_on(
    build, scripted_server, tmp_path, monkeypatch
):
    project = plain_project(tmp_path / "proj")
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here") + os.pathsep + "/usr/bin/false-dir")
    agent, rec = build(project)
    await turn(agent, scripted_server, "write", ("write_file", {"path": "x.txt", "content": "x\n"}))
    await turn(agent, scripted_server, "write more", ("write_file", {"path": "y.txt", "content": "y\n"}))
    off = [n for n in rec.of(ev.Notice) if "checkpoints are off" in n.text]
    assert len(off) == 1 and "git is not installed" in off[0].text
    assert (project / "y.txt").read_text() == "y\n"
    preview = await rewind.preview_rewind(agent, 2, rewind.BOTH)
    assert preview.plan is None and "file checkpoints are off" in preview.note
    assert (await rewind.apply(agent, preview)).done  # the conversation still goes back
    assert [m.get("content") for m in agent.messages if m.get("role") == "user"] == ["write"]


async def test_calls_that_run_at_once_share_one_snapshot_before_them(build, scripted_server, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    agent, _ = build(project)
    await turn(
        agent,
        scripted_server,
        "three files",
        *[("write_file", {"path": f"f{n}.txt", "content": f"{n}\n"}) for n in range(3)],
    )
    snaps = agent.deps.store.turn_log.snapshots(agent.session_id)
    assert [s.kind for s in snaps] == ["before", "after", "after", "after"]
    assert {p for s in snaps for p in s.paths} == {"f0.txt", "f1.txt", "f2.txt"}


async def test_read_only_tools_take_no_snapshot(build, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    agent, _ = build(project)
    await turn(
        agent, scripted_server, "look", ("read_file", {"path": "notes.txt"}), ("search_files", {"pattern": "main"})
    )
    assert agent.deps.store.turn_log.snapshots(agent.session_id) == []
    assert [t.text for t in agent.deps.store.turn_log.turns(agent.session_id)] == ["look"]


async def test_a_user_command_is_a_turn_with_its_snapshots(build, tmp_path):
    project = plain_project(tmp_path / "proj")
    agent, _ = build(project)
    before = tree_state(project)
    result = await agent.run_user_command("rm notes.txt")
    assert result is not None and not result.is_error
    [row] = rewind.turn_rows(agent)
    assert row.text == "!rm notes.txt" and row.files == ("notes.txt",)
    assert (await rewind.apply(agent, await rewind.preview_undo(agent))).done
    assert tree_state(project) == before


async def test_diff_shows_the_sessions_changes_since_the_start_or_a_turn(build, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    agent, _ = build(project)
    assert (await rewind.session_diff(agent)).text.startswith("No file changes")
    await three_turns(agent, scripted_server, project)
    whole = await rewind.session_diff(agent)
    assert whole.is_diff and "+++ b/src/util.py" in whole.text and "-def main():" in whole.text
    since_3 = await rewind.session_diff(agent, 3)
    assert "src/util.py" not in since_3.text and "--- a/secret.env" in since_3.text
    assert (await rewind.session_diff(agent, 9)).text == "No diff: there is no turn 9 (/rewind lists them)."


async def test_bad_turn_numbers_are_one_line(build, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    agent, _ = build(project)
    with pytest.raises(rewind.CannotRewind, match="there is no turn 5"):
        await rewind.preview_rewind(agent, 5, rewind.BOTH)
    with pytest.raises(rewind.CannotRewind, match="no turn of this session changed files"):
        await rewind.preview_undo(agent)
    assert rewind.parse_args("3 code --force") == (3, "code", True)
    with pytest.raises(ValueError, match="'sideways' is not a turn number"):
        rewind.parse_args("3 sideways")


async def test_a_rewind_after_editing_the_checkpoint_keeps_the_edited_checkpoint(build, scripted_server, tmp_path):
    from hermeslite.agent import controls
    from tests.summary_requests import checkpoint

    answer_summaries(scripted_server)
    project = plain_project(tmp_path / "proj")
    agent, _ = build(project, context_window=16_000)
    for n in range(8):
        assert (await agent.run_turn(f"turn {n}: {FILLER}")).ok
    assert (await agent.compress_now()).changed
    assert (await agent.run_turn("a turn on the compacted transcript")).ok  # logs it whole
    assert controls.edit_checkpoint(agent, checkpoint("Edited by the user.")).accepted
    assert (await agent.run_turn("after the edit")).ok
    assert (await agent.run_turn("one more")).ok
    last = rewind.turn_rows(agent)[-1].number
    preview = await rewind.preview_rewind(agent, last, rewind.CHAT)
    assert preview.chat.missing == 0
    assert (await rewind.apply(agent, preview)).done
    [summary] = [m for m in agent.messages if is_summary(m)]
    assert "Edited by the user." in str(summary["content"])
    assert agent.messages[-2]["content"] == "after the edit"


async def test_what_a_post_tool_hook_changes_belongs_to_the_call(build, scripted_server, tmp_path):
    """A formatter run by a PostToolUse hook edits the file the call wrote: undoing the call takes back
    both, and the hook's edit is not taken for the user's."""
    from tests.hook_scripts import on, script

    target = write(tmp_path / "proj" / "a.txt", "original\n")
    formatter = script(tmp_path / "hooks", "fmt.sh", f"cat > /dev/null; echo formatted >> {target}")
    agent, _ = build(tmp_path / "proj", hooks=on("PostToolUse", formatter, matcher="write_file"))
    await turn(agent, scripted_server, "edit", ("write_file", {"path": "a.txt", "content": "agent\n"}))
    assert target.read_text() == "agent\nformatted\n"
    preview = await rewind.preview_undo(agent)
    assert preview.hand_changed == ()
    assert (await rewind.apply(agent, preview)).done
    assert target.read_text() == "original\n"


async def test_a_file_over_the_size_limit_is_named_in_one_line(build, scripted_server, tmp_path):
    project = plain_project(tmp_path / "proj")
    write(project / "dump.bin", b"x" * 3000)
    agent, rec = build(project, max_file_mb=0.002)
    await turn(agent, scripted_server, "one", ("write_file", {"path": "a.txt", "content": "a\n"}))
    await turn(agent, scripted_server, "two", ("write_file", {"path": "b.txt", "content": "b\n"}))
    said = [n.text for n in rec.of(ev.Notice) if "file checkpoints" in n.text]
    assert said == ["Not in file checkpoints (over 0.002 MB, checkpoints.max_file_mb): dump.bin."]


async def test_a_store_that_cannot_be_written_turns_checkpoints_off_in_one_line(build, scripted_server, tmp_path, home):
    project = plain_project(tmp_path / "proj")
    write(home / "data" / "checkpoints", "a file where the store's folder should be\n")
    agent, rec = build(project)
    await turn(agent, scripted_server, "one", ("write_file", {"path": "a.txt", "content": "a\n"}))
    await turn(agent, scripted_server, "two", ("write_file", {"path": "b.txt", "content": "b\n"}))
    [off] = [n.text for n in rec.of(ev.Notice) if "checkpoints are off" in n.text]
    assert off.startswith("File checkpoints are off: cannot write the checkpoint store in ")
    assert (project / "b.txt").read_text() == "b\n" and not rec.of(ev.ErrorEvent)


async def test_a_later_sessions_first_snapshot_prunes_the_old_sessions_of_the_project(
    build, scripted_server, tmp_path, home
):
    """The pruning policy (tests/store) is wired in: once a day per project, a session's first snapshot
    drops the snapshots of sessions older than checkpoints.keep_days, and never its own."""
    import asyncio

    from tests.patience import patience

    project = plain_project(tmp_path / "proj")
    old, _ = build(project)
    await turn(old, scripted_server, "old work", ("write_file", {"path": "old.txt", "content": "old\n"}))
    assert (await rewind.preview_undo(old)).plan is not None
    # The first session prunes (nothing) today, in the background after its first snapshot: wait for its mark.
    deadline = asyncio.get_running_loop().time() + patience(30)
    while not (stamps := list((home / "data" / "checkpoints").rglob("pruned"))):
        assert asyncio.get_running_loop().time() < deadline, "the first session never marked its prune"
        await asyncio.sleep(0.05)
    [stamp] = stamps
    os.utime(stamp, (stamp.stat().st_atime - 2 * 86_400,) * 2)  # as if two days had passed since

    new, _ = build(project, keep_days=0)
    await turn(new, scripted_server, "new work", ("write_file", {"path": "new.txt", "content": "new\n"}))
    deadline = asyncio.get_running_loop().time() + patience(30)
    while (gone := await rewind.preview_undo(old)).plan is not None:  # the prune runs in a thread: wait for it
        assert asyncio.get_running_loop().time() < deadline, "the old session's snapshots were never pruned"
        await asyncio.sleep(0.05)
    assert "no longer in the store" in gone.note and (project / "old.txt").read_text() == "old\n"
    assert (await rewind.apply(new, await rewind.preview_undo(new))).done  # its own snapshots stay
    assert not (project / "new.txt").exists()
