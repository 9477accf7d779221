"""`hermeslite export` as a user runs it, and /export in the line chat (the app's is in tests/tui/test_export.py)."""

from __future__ import annotations

import sqlite3

from tests.cli_process import hermeslite
from tests.export.session import USER_TURNS
from tests.test_line_chat import chat_on


def copy_store(source, home) -> None:
    """The test's session database as the one a process run with `home` reads."""
    (home / "data").mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(home / "data" / "sessions.db") as dst:
        src.backup(dst)


async def test_cli_exports_the_latest_session_here_to_stdout_or_a_file(compacted, make_agent, tmp_path):
    home = tmp_path / "home"
    copy_store(make_agent.store.path, home)
    shown = hermeslite(["export"], home, tmp_path)  # the session was started in tmp_path
    assert shown.returncode == 0, shown.stderr
    assert all(turn.strip() in shown.stdout for turn in USER_TURNS) and "## Compaction 2" in shown.stdout
    sid = compacted.agent.session_id
    wrote = hermeslite(["export", sid[:12], "-o", "out.html"], home, tmp_path / "home")
    assert wrote.returncode == 0 and wrote.stderr.strip().endswith(str(home / "out.html"))
    assert (home / "out.html").read_text().startswith("<!DOCTYPE html>")
    as_json = hermeslite(["export", sid, "--format", "json"], home, home)
    assert as_json.stdout.lstrip().startswith("{") and '"version": 1' in as_json.stdout


async def test_cli_errors_are_one_line_and_exit_2(compacted, make_agent, tmp_path):
    home = tmp_path / "home"
    copy_store(make_agent.store.path, home)
    for args, said in (
        (["export", "no-such-id"], "no session matches 'no-such-id'"),
        (["export", "--format", "pdf"], "unknown export format 'pdf': use one of md, json, html"),
    ):
        run = hermeslite(args, home, tmp_path)
        assert run.returncode == 2 and run.stdout == "", run
        assert run.stderr.count("\n") == 1 and said in run.stderr and "Traceback" not in run.stderr
    elsewhere = hermeslite(["export"], home, home)  # no session was started there
    assert elsewhere.returncode == 2 and "no saved session was started in" in elsewhere.stderr


async def test_line_chat_export_writes_the_named_file_and_says_where(compacted, tmp_path):
    chat, _, err = chat_on(compacted.agent)
    await chat.handle("/export talk.json")
    assert (tmp_path / "talk.json").read_text().lstrip().startswith("{")
    assert f"→ {tmp_path / 'talk.json'}" in err.getvalue() and "5 user messages, 2 compactions" in err.getvalue()
    await chat.handle("/export")
    default = tmp_path / f"hermeslite-{compacted.agent.session_id}.md"
    assert default.read_text().startswith("# ") and str(default) in err.getvalue()
    await chat.handle(f"/export {tmp_path / 'no-such-dir' / 'x.md'}")
    assert chat.failed and "export failed: could not write" in err.getvalue()
