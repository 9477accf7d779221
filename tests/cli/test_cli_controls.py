"""The compaction commands in the line chat, as a user runs them: a real process, HTTP and store."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.builders import FILLER
from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.server import ScriptedServer
from tests.summary_requests import answer_summaries, checkpoint, is_summary_request


def chat_then(server: ScriptedServer, home: Path, cwd: Path, turns: int, commands: str):
    """A line chat whose summary requests get a checkpoint: `turns` filler turns, then `commands` and /quit.

    The test model's window is the 8,192 assumed for an unknown model, which leaves a checkpoint
    too little for a model summary by default; these tests are about the commands, so the model
    is asked anyway (compression.min_summary_tokens: 0, in the config every later run reads too).
    """
    answer_summaries(server)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text("compression:\n  min_summary_tokens: 0\n")
    lines = "".join(f"turn {n}: {FILLER}\n" for n in range(turns))
    return hermeslite([*model_args(server)], home, cwd, input=f"{lines}{commands}\n/quit\n")


def summary_requests(server: ScriptedServer) -> int:
    return sum(is_summary_request(b) for b in server.requests)


def test_preview_compress_and_uncompress_in_the_line_chat(scripted_server, tmp_path):
    home = tmp_path / "home"
    done = chat_then(scripted_server, home, tmp_path, 6, "/compress --preview database schema\n/summary\n/uncompress")
    assert done.returncode == 0, done.stderr
    assert "Preview of /compress database schema (nothing was sent or changed)" in done.stderr
    assert "Now: 13 messages" in done.stderr and "Model call: yes" in done.stderr
    assert summary_requests(scripted_server) == 0
    assert "No checkpoint yet" in done.stderr
    assert "Nothing undone: nothing to undo" in done.stderr
    store = sessions_db(home)
    sid = store.latest_session_id()
    original = store.load_transcript(sid)
    assert store.compactions(sid) == [] and len(original) == 13

    again = hermeslite(
        [*model_args(scripted_server), "--continue"], home, tmp_path, input="/compress\n/summary\n/quit\n"
    )
    assert again.returncode == 0, again.stderr
    assert "## Active Task" in again.stdout and summary_requests(scripted_server) == 1
    compacted = store.load_transcript(sid)
    assert len(compacted) < 13
    # A new process: the undo point is in the database.
    undone = hermeslite([*model_args(scripted_server), "--continue"], home, tmp_path, input="/uncompress\n/quit\n")
    assert undone.returncode == 0, undone.stderr
    assert f"Undid the last compaction: {len(compacted)} → 13 messages" in undone.stderr
    assert store.load_transcript(sid) == original


def editor_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(f"import sys, pathlib\npathlib.Path(sys.argv[1]).write_text({body!r})\n")
    return f"{sys.executable} {script}"


def test_summary_edit_uses_editor_and_validates(scripted_server, tmp_path):
    home = tmp_path / "home"
    assert chat_then(scripted_server, home, tmp_path, 6, "/compress").returncode == 0
    store = sessions_db(home)
    sid = store.latest_session_id()
    before = store.load_transcript(sid)

    good = checkpoint().replace("## Goal\nNone.", "## Goal\nShip the parser (EDITED IN EDITOR).")
    edited = run_with_editor(scripted_server, home, tmp_path, editor_script(tmp_path, good))
    assert edited.returncode == 0, edited.stderr
    assert "Checkpoint replaced" in edited.stderr
    assert "EDITED IN EDITOR" in str(store.load_transcript(sid))

    refused = run_with_editor(scripted_server, home, tmp_path, editor_script(tmp_path, "just some notes"))
    assert refused.returncode == 1
    assert "Edit refused, the checkpoint is unchanged: the edited checkpoint lacks the section(s)" in refused.stderr
    kept = refused.stderr.split("Your text is in ", 1)[1].strip().rstrip(".")
    assert Path(kept).read_text() == "just some notes"
    assert "EDITED IN EDITOR" in str(store.load_transcript(sid)) and len(store.load_transcript(sid)) == len(before)

    missing = run_with_editor(scripted_server, home, tmp_path, None)
    assert (
        "/summary edit needs $EDITOR (for example: export EDITOR=nano); the checkpoint is unchanged." in missing.stderr
    )
    assert "EDITED IN EDITOR" in str(store.load_transcript(sid))


def run_with_editor(server: ScriptedServer, home: Path, cwd: Path, editor: str | None):
    env = env_for(home)
    env.pop("EDITOR", None)
    if editor is not None:
        env["EDITOR"] = editor
    return hermeslite([*model_args(server), "--continue"], home, cwd, env=env, input="/summary edit\n/quit\n")


def test_handoff_lineage_shows_in_sessions(scripted_server, tmp_path):
    home = tmp_path / "home"
    done = chat_then(scripted_server, home, tmp_path, 5, "/handoff parser\nafter the handoff")
    assert done.returncode == 0, done.stderr
    store = sessions_db(home)
    child = store.latest_session_id()
    parent = store.get_session(child).parent_id
    assert parent and parent != child
    assert f"Handed off to session {child} with a fresh checkpoint" in done.stderr
    assert f"Session {parent} stays saved" in done.stderr
    assert len(store.load_transcript(parent)) == 11  # untouched: system + 5 turns
    assert [m["role"] for m in store.load_transcript(child)] == ["system", "user", "assistant", "user", "assistant"]
    listing = hermeslite(["sessions"], home, tmp_path)
    row = next(line for line in listing.stdout.splitlines() if line.startswith(child))
    assert parent in row and "FROM" in listing.stdout.splitlines()[0]


def test_compress_upto_in_the_line_chat_keeps_the_later_turns_and_says_so(scripted_server, tmp_path):
    home = tmp_path / "home"
    done = chat_then(
        scripted_server, home, tmp_path, 6, "/compress --upto 9\n/compress --upto x\n/compress --preview --upto 2"
    )
    assert done.returncode == 1  # the two bad ones are failed commands
    assert "/compress --upto: --upto takes a user turn from 1 to 5: the transcript holds 6 user turns" in done.stderr
    assert "usage: /compress [--preview] [--upto N] [focus] (--upto takes one user turn number" in done.stderr
    assert "Preview of /compress --upto 2 (nothing was sent or changed)" in done.stderr
    assert "Summarize: user turns 1-2: 4 messages (#2-#5)" in done.stderr
    assert summary_requests(scripted_server) == 0 and "Traceback" not in done.stderr
    store = sessions_db(home)
    sid = store.latest_session_id()
    before = store.load_transcript(sid)

    again = hermeslite(
        [*model_args(scripted_server), "--continue"], home, tmp_path, input="/compress --upto 2\n/quit\n"
    )
    assert again.returncode == 0, again.stderr
    assert "⟳ Compressed turns 1-2 (later turns kept verbatim): 13 → " in again.stderr
    after = store.load_transcript(sid)
    assert after[1]["content"].endswith(before[5]["content"])  # turn 3's ask, with the checkpoint in front
    assert after[2:] == before[6:]  # and everything after it verbatim
