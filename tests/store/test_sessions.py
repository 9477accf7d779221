"""SessionStore: transcripts, generations, repair on load, compactions, archive, ids, durability."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermeslite.context.attachments import attachment
from hermeslite.context.hook_context import framed, with_parts
from hermeslite.context.result import CompressionResult
from hermeslite.context.sanitize import sanitize_tool_pairs
from hermeslite.store.schema import SCHEMA_VERSION, SchemaTooNew
from hermeslite.store.sessions import (
    INTERRUPTED_TOOL_TEXT,
    NO_SAVED_REPLY,
    CompactionRecord,
    SessionBusy,
    SessionNotFound,
    SessionStore,
    default_sessions_path,
    repair_transcript,
)
from hermeslite.store.transcript import TITLE_CHARS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "db" / "sessions.db")
    yield s
    s.close()


def call(cid, name="terminal", args='{"command": "ls"}'):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def result(cid, text="ok"):
    return {"role": "tool", "tool_call_id": cid, "content": text}


def test_round_trip_keeps_private_keys_and_list_content(store: SessionStore):
    sid = store.create_session("openai/gpt-4o", "/tmp/project")
    msgs = [
        {"role": "system", "content": "sys"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what's in this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
            ],
        },
        {
            "role": "assistant",
            "content": "ünïcödé ✓ \U0001f600",
            "_hl_summary": True,
            "_hl_anchors": {"users": ["x"], "files": [["a.py", "read"]]},
        },
        {"role": "assistant", "content": None, "tool_calls": [call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": "[pruned; recall id r0123456789]", "_hl_ref": "r0123456789"},
        {"role": "user", "content": "lone surrogate \ud800 survives"},
        {"role": "assistant", "content": "it does"},
    ]
    for m in msgs:
        store.append_message(sid, m)
    assert store.load_transcript(sid) == msgs


def test_unknown_session_raises(store: SessionStore):
    with pytest.raises(SessionNotFound):
        store.append_message("nope", {"role": "user", "content": "x"})
    with pytest.raises(SessionNotFound):
        store.load_transcript("nope")
    assert store.get_session("nope") is None


def test_replace_transcript_bumps_generation_and_drops_old_rows(store: SessionStore):
    sid = store.create_session("m", "/w")
    for i in range(6):
        store.append_message(sid, {"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"})
    assert store.generation(sid) == 0
    new = [{"role": "user", "content": "summary", "_hl_summary": True}, {"role": "assistant", "content": "m5"}]
    assert store.replace_transcript(sid, new) == 1
    assert store.load_transcript(sid) == new
    store.append_message(sid, {"role": "assistant", "content": "after"})
    assert store.load_transcript(sid)[-1] == {"role": "assistant", "content": "after"}
    assert store.get_session(sid).message_count == 3
    rows = sqlite3.connect(store.path).execute("SELECT DISTINCT generation FROM messages WHERE session_id=?", (sid,))
    assert [r[0] for r in rows] == [1]


def test_failed_replace_keeps_the_old_transcript(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.append_message(sid, {"role": "assistant", "content": "keep me"})

    class Unserializable:
        def __str__(self):
            raise RuntimeError("cannot serialize")

    with pytest.raises(RuntimeError):
        store.replace_transcript(
            sid, [{"role": "user", "content": "new"}, {"role": "user", "content": Unserializable()}]
        )
    assert store.load_transcript(sid) == [{"role": "assistant", "content": "keep me"}]
    assert store.generation(sid) == 0


def test_dangling_tool_call_gets_a_stub_after_its_existing_results(store: SessionStore):
    sid = store.create_session("m", "/w")
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b"), call("c")]},
        result("a"),
        {"role": "user", "content": "hello? (typed after the restart)"},
    ]
    for m in msgs:
        store.append_message(sid, m)
    loaded = store.load_transcript(sid)
    assert [m.get("tool_call_id") for m in loaded[2:5]] == ["a", "b", "c"]
    stub = loaded[3]
    assert stub == {"role": "tool", "tool_call_id": "b", "content": INTERRUPTED_TOOL_TEXT}
    assert stub["content"].startswith("error: ")
    assert loaded[5] == msgs[3]
    assert sanitize_tool_pairs(loaded) == loaded


def test_crash_right_after_the_call_message(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.append_message(sid, {"role": "user", "content": "go"})
    store.append_message(sid, {"role": "assistant", "content": "running", "tool_calls": [call("x")]})
    loaded = store.load_transcript(sid)
    assert loaded[-1] == {"role": "tool", "tool_call_id": "x", "content": INTERRUPTED_TOOL_TEXT}


def test_orphan_results_are_dropped(store: SessionStore):
    sid = store.create_session("m", "/w")
    msgs = [
        {"role": "user", "content": "go"},
        result("ghost"),
        {"role": "assistant", "content": None, "tool_calls": [call("a")]},
        result("a"),
        result("a", "duplicate answer"),
        {"role": "assistant", "content": "done"},
    ]
    for m in msgs:
        store.append_message(sid, m)
    assert store.load_transcript(sid) == [msgs[0], msgs[2], msgs[3], msgs[5]]


def test_a_user_message_left_without_a_reply_gets_a_note_and_keeps_its_text(store: SessionStore):
    sid = store.create_session("m", "/w")
    msgs = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "first ask, the reply was streaming when the process died"},
        {"role": "user", "content": "second ask, typed after the restart"},
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "third ask, killed again"},
    ]
    for m in msgs:
        store.append_message(sid, m)
    loaded = store.load_transcript(sid)
    note = {"role": "assistant", "content": NO_SAVED_REPLY}
    assert loaded == [msgs[0], msgs[1], note, msgs[2], msgs[3], msgs[4], note]
    roles = [m["role"] for m in loaded[1:]]
    assert all(a != b for a, b in itertools.pairwise(roles))


def test_a_summary_in_a_user_message_is_not_answered_with_a_note():
    """It was never a question: saying no reply was saved for it would be false."""
    msgs = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "[summary of the earlier conversation]", "_hl_summary": True},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": "done"},
    ]
    assert repair_transcript(msgs) == msgs


def test_a_bang_command_last_or_before_a_message_is_not_answered_with_a_note():
    """A `!command` never gets a reply by design; a note would claim a crash that did not happen."""
    from hermeslite.context.user_command import user_command_message

    ran = user_command_message("ls", "a.txt", 0)
    ending = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        ran,
    ]
    assert repair_transcript(ending) == ending
    followed = [*ending, {"role": "user", "content": "what is in a.txt?"}, {"role": "assistant", "content": "text"}]
    assert repair_transcript(followed) == followed
    lost = [*ending, {"role": "user", "content": "what is in a.txt?"}]
    assert repair_transcript(lost)[-1]["content"] == NO_SAVED_REPLY  # a real question with no answer still is noted


def test_repair_is_a_no_op_on_valid_transcripts():
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("a")]},
        result("a"),
        {"role": "assistant", "content": "done"},
    ]
    assert repair_transcript(msgs) == msgs


def test_compaction_records(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.record_compaction(sid, CompactionRecord("preflight", 90_000, 20_000, 48, 12, summary="## Goal\nx"))
    res = CompressionResult(
        messages=[{"role": "user", "content": "x"}],
        tokens_before=50,
        tokens_after=50,
        messages_before=3,
        aborted=True,
        error="auth failed",
        focus_topic="tests",
    )
    store.record_compaction(sid, CompactionRecord.from_result(res, "manual"))
    first, second = store.compactions(sid)
    assert (
        first.trigger,
        first.tokens_before,
        first.tokens_after,
        first.messages_before,
        first.messages_after,
        first.summary,
        first.fallback,
        first.aborted,
    ) == ("preflight", 90_000, 20_000, 48, 12, "## Goal\nx", False, False)
    assert (second.trigger, second.aborted, second.error, second.focus, second.messages_after) == (
        "manual",
        True,
        "auth failed",
        "tests",
        1,
    )
    assert first.at <= second.at
    with pytest.raises(ValueError):
        CompactionRecord("sometimes", 1, 1, 1, 1)


def test_archive_and_recall_keep_the_first_original(store: SessionStore):
    sid = store.create_session("m", "/w")
    original = {"role": "tool", "tool_call_id": "c1", "content": "x" * 5000, "_hl_private": 1}
    store.archive(sid, {"r0123456789": original})
    store.archive(sid, {"r0123456789": {"role": "tool", "tool_call_id": "c1", "content": "[pruned]"}})
    assert store.recall(sid, "r0123456789") == original
    assert store.recall(sid, "rffffffffff") is None
    other = store.create_session("m", "/w")
    assert store.recall(other, "r0123456789") is None


def test_apply_compaction_is_one_transaction(store: SessionStore):
    sid = store.create_session("m", "/w")
    for m in ({"role": "user", "content": "a"}, {"role": "assistant", "content": "b" * 1000}):
        store.append_message(sid, m)
    new = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "[pruned; recall id r1111111111]"}]
    gen = store.apply_compaction(
        sid,
        new,
        {"r1111111111": {"role": "assistant", "content": "b" * 1000}},
        CompactionRecord("reactive", 10, 5, 2, 2),
    )
    assert gen == 1
    assert store.load_transcript(sid) == new
    assert store.recall(sid, "r1111111111")["content"] == "b" * 1000
    assert [c.trigger for c in store.compactions(sid)] == ["reactive"]


def test_todos_round_trip(store: SessionStore):
    sid = store.create_session("m", "/w")
    assert store.load_todos(sid) is None
    store.save_todos(sid, '[{"id": "1", "content": "a", "status": "pending"}]')
    assert json.loads(store.load_todos(sid))[0]["id"] == "1"
    with pytest.raises(SessionNotFound):
        store.save_todos("missing", "[]")


def test_latest_list_get_and_titles(store: SessionStore):
    a = store.create_session("model-a", "/one")
    time.sleep(0.01)
    b = store.create_session("model-b", "/two", title="Named")
    store.append_message(b, {"role": "user", "content": "ignored because a title was given"})
    time.sleep(0.01)
    store.append_message(a, {"role": "system", "content": "sys"})
    store.append_message(
        a, {"role": "user", "content": "  Fix   the flaky\n test in CI please, it fails on every third run or so  "}
    )
    store.append_message(a, {"role": "user", "content": "second"})
    assert store.latest_session_id() == a
    assert store.latest_session_id(cwd="/two") == b
    assert store.latest_session_id(cwd="/nowhere") is None
    infos = store.list_sessions()
    assert [i.id for i in infos] == [a, b]
    info_a = store.get_session(a)
    assert info_a.title == "Fix the flaky test in CI please, it fails on every third run or so"  # one line, whole
    store.append_message(b, {"role": "assistant", "content": "ok"})
    c = store.create_session("model-c", "/three")
    store.append_message(c, {"role": "user", "content": "word " * 100})
    long = store.get_session(c).title
    assert len(long) == TITLE_CHARS and long.endswith("…")  # each list cuts it further to its own width
    assert (info_a.message_count, info_a.model, info_a.cwd) == (3, "model-a", "/one")
    assert store.get_session(b).title == "Named"
    assert len(store.list_sessions(limit=1)) == 1


def test_untitled_session_without_user_messages(store: SessionStore):
    sid = store.create_session("m", None)
    info = store.get_session(sid)
    assert info.title is None and info.message_count == 0 and info.cwd is None


def test_empty_store(store: SessionStore):
    assert store.latest_session_id() is None and store.list_sessions() == []


def test_id_format_and_prefix_resolution(store: SessionStore):
    sid = store.create_session("m", "/w")
    date, clock, rand = sid.split("-")
    assert len(date) == 8 and len(clock) == 6 and len(rand) == 6
    assert store.resolve_id(sid) == sid
    assert store.resolve_id(sid[:-2]) == sid
    other = store.create_session("m", "/w")
    with pytest.raises(SessionNotFound) as err:
        store.resolve_id(sid[:8])
    assert "matches 2 sessions" in str(err.value) and sid in str(err.value) and other in str(err.value)
    with pytest.raises(SessionNotFound) as err:
        store.resolve_id("19990101")
    assert "no session matches" in str(err.value) and "`hermeslite sessions` lists them" in str(err.value)
    with pytest.raises(SessionNotFound):
        store.resolve_id("   ")
    with pytest.raises(SessionNotFound):
        store.resolve_id("%")  # LIKE wildcards are literal


def test_schema_version_and_wal(store: SessionStore):
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.journal_mode == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "sessions",
        "messages",
        "compactions",
        "archive",
        "usage",
        "undo_points",
        "archive_docs",
        "archive_fts",
    } <= tables


def test_reopening_keeps_data_and_does_not_remigrate(tmp_path: Path):
    path = tmp_path / "s.db"
    with SessionStore(path) as s:
        sid = s.create_session("m", "/w")
        s.append_message(sid, {"role": "assistant", "content": "hi"})
    with SessionStore(path) as s:
        assert s.load_transcript(sid) == [{"role": "assistant", "content": "hi"}]
        assert s.schema_version == SCHEMA_VERSION


def test_newer_schema_is_refused(tmp_path: Path):
    path = tmp_path / "s.db"
    SessionStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNew) as err:
        SessionStore(path)
    assert "upgrade hermeslite" in str(err.value)


def test_db_file_is_private(tmp_path: Path):
    path = tmp_path / "s.db"
    SessionStore(path).close()
    assert (path.stat().st_mode & 0o077) == 0


def test_default_path_is_under_data_dir(home: Path):
    assert default_sessions_path() == home / "data" / "sessions.db"


def test_two_stores_share_one_file_one_writer_per_session(tmp_path: Path):
    path = tmp_path / "s.db"
    with SessionStore(path) as a, SessionStore(path) as b:
        one, two = a.create_session("m", "/w"), b.create_session("m", "/w")
        a.append_message(one, {"role": "user", "content": "to one"})
        b.append_message(two, {"role": "user", "content": "to two"})
        assert next(m["content"] for m in b.load_transcript(one)) == "to one"  # reading needs no claim
        with pytest.raises(SessionBusy) as err:
            b.append_message(one, {"role": "assistant", "content": "from b"})
        assert f"session {one} is in use by pid {os.getpid()} (hermeslite)" in str(err.value)
        a.release(one)
        b.append_message(one, {"role": "assistant", "content": "from b"})
        assert [m["content"] for m in a.load_transcript(one)] == ["to one", "from b"]


async def test_concurrent_appends_from_asyncio_tasks(store: SessionStore):
    import asyncio

    sid = store.create_session("m", "/w")

    async def writer(n):
        for i in range(20):
            await asyncio.to_thread(store.append_message, sid, {"role": "assistant", "content": f"{n}-{i}"})

    await asyncio.gather(*(writer(n) for n in range(4)))
    contents = [m["content"] for m in store.load_transcript(sid)]
    assert len(contents) == 80 and len(set(contents)) == 80


def test_delete_session_cascades(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.append_message(sid, {"role": "user", "content": "x"})
    store.archive(sid, {"r0000000001": {"role": "user", "content": "x"}})
    assert store.delete_session(sid)
    assert store.get_session(sid) is None and store.recall(sid, "r0000000001") is None
    assert not store.delete_session(sid)


_CRASHER = """
import os, signal, sys
from pathlib import Path
from hermeslite.store.sessions import SessionStore
store = SessionStore(Path(sys.argv[1]))
sid = sys.argv[2]
store.append_message(sid, {"role": "user", "content": "run the tests", "_hl_anchors": {"k": 1}})
for i in range(50):
    store.append_message(sid, {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{i}", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]})
    if i == 37:
        print("killing", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)  # mid-tool: call written, result not
    store.append_message(sid, {"role": "tool", "tool_call_id": f"call_{i}", "content": f"output {i}"})
"""


def test_sigkill_mid_session_loses_nothing_committed(tmp_path: Path):
    path = tmp_path / "s.db"
    with SessionStore(path) as s:
        sid = s.create_session("m", "/w")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", _CRASHER, str(path), sid], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == -9, proc.stderr
    assert "killing" in proc.stdout
    with SessionStore(path) as s:
        loaded = s.load_transcript(sid)
    assert loaded[0] == {"role": "user", "content": "run the tests", "_hl_anchors": {"k": 1}}
    # 38 calls were written; 37 got their real result, the last one a stub.
    calls = [m for m in loaded if m["role"] == "assistant"]
    results = [m for m in loaded if m["role"] == "tool"]
    assert len(calls) == 38 and len(results) == 38
    assert [r["content"] for r in results[:37]] == [f"output {i}" for i in range(37)]
    assert results[-1] == {"role": "tool", "tool_call_id": "call_37", "content": INTERRUPTED_TOOL_TEXT}
    assert sanitize_tool_pairs(loaded) == loaded


def test_a_title_is_what_the_markdown_of_the_first_message_reads_as(store: SessionStore):
    """The header and every listing showed the first message's raw Markdown."""
    sid = store.create_session("m", "/w")
    store.append_message(
        sid, {"role": "user", "content": "## **Fix** the `parser`\n- see [app.py](src/app.py), *not* __init__.py"}
    )
    assert store.get_session(sid).title == "Fix the parser see app.py, not __init__.py"


def test_a_title_leaves_out_the_files_a_mention_attached(store: SessionStore):
    """`explain @calc.py` titled the session with calc.py's code run into the typed words."""
    sid = store.create_session("m", "/w")
    typed = "explain @calc.py please"
    store.append_message(
        sid, {"role": "user", "content": typed + attachment("calc.py", 2, "def add(a, b):\n    return a + b")}
    )
    assert store.get_session(sid).title == typed


def test_a_title_leaves_out_what_prompt_hooks_added(store: SessionStore):
    """A UserPromptSubmit hook's ticket text ran into the title shown by /resume and the header."""
    sid = store.create_session("m", "/w")
    typed = "look at the flaky test"
    added = [framed("SessionStart", "branch: main"), framed("UserPromptSubmit", "ticket ABC-12: flaky CI")]
    store.append_message(sid, {"role": "user", "content": with_parts(typed, added)})
    assert store.get_session(sid).title == typed
