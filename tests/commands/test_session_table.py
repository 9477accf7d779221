"""The rows a session listing shows (agent/session_list.py) and the table every front end draws them in."""

from __future__ import annotations

import time
from pathlib import Path

from hermeslite.agent.session_list import session_rows
from hermeslite.commands.session_table import EMPTY, session_lines
from hermeslite.commands.views import sessions_view
from hermeslite.store.sessions import SessionStore
from hermeslite.store.usage import UsageRecord


def make_store(tmp_path: Path) -> tuple[SessionStore, list[str]]:
    """Sessions a (oldest), b, c (newest, handed off from a); ids in creation order."""
    store = SessionStore(tmp_path / "sessions.db")
    ids = []
    for model, text, parent in [
        ("openai/gpt-4o-mini", "first \x1b]0;owned\x07 ask", None),
        ("anthropic/claude-sonnet-4-5-20250929-with-a-long-suffix", None, None),
        ("openai/gpt-4o-mini", "carry on", 0),
    ]:
        sid = store.create_session(model, "/w", parent_id=None if parent is None else ids[parent])
        if text:
            store.append_message(sid, {"role": "user", "content": text})
        ids.append(sid)
        time.sleep(0.01)
    return store, ids


def test_rows_come_newest_first_with_the_open_one_marked_and_the_latest_turn_size(tmp_path):
    store, (a, b, c) = make_store(tmp_path)
    store.record_usage(a, UsageRecord("turn", "m", 1_200))
    store.record_usage(a, UsageRecord("turn", "m", 3_400))
    store.record_usage(a, UsageRecord("summary", "m", 9_999))  # a summary request is not the conversation's size
    with store:
        rows = session_rows(store, current=b)
        # recording usage does not make a session more recent: the order is still by last message
        assert [r.id for r in rows] == [c, b, a]
        assert [r.current for r in rows] == [False, True, False]
        assert [r.context_tokens for r in rows] == [None, None, 3_400]
        assert rows[0].parent_id == a and rows[0].title == "carry on" and rows[0].message_count == 1
        assert [r.id for r in session_rows(store, limit=2)] == [c, b]


def test_the_table_lines_up_and_shows_only_the_columns_that_say_something(tmp_path):
    store, (a, b, c) = make_store(tmp_path)
    with store:
        lines = session_lines(session_rows(store, current=None, limit=3)[1:])  # b and a: no handoff among them
        marked = session_lines(session_rows(store, current=c))
    assert lines[0].split() == ["ID", "LAST", "ACTIVE", "MSGS", "CONTEXT", "MODEL", "TITLE"]
    assert [line.split()[0] for line in lines[1:]] == [b, a]
    assert "(untitled)" in lines[1] and "anthropic/claude-sonnet-4-5…" in lines[1]  # clipped to 28 columns
    assert "␛]0;owned␇" in lines[2] and "\x1b" not in "".join(lines)  # the title is shown, never obeyed
    title_at = lines[0].index("TITLE")
    assert lines[1][title_at:] == "(untitled)" and lines[2][title_at:].startswith("first")
    for header, figure in (("MSGS", "0"), ("CONTEXT", "-")):  # figures align right, under their header's end
        end = lines[0].index(header) + len(header)
        assert lines[1][end - 1 : end + 1] == figure + " "
    assert marked[0].split()[-1] == "FROM" and marked[1].startswith(f"●  {c}")
    assert marked[1].endswith(f"(handed off from {a})") and marked[2].startswith(f"   {b}")


def test_no_sessions_is_one_line_everywhere():
    assert session_lines([]) == [EMPTY] and sessions_view([]) == EMPTY
