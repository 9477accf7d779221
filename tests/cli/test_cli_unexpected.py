"""An error nobody planned for ends `hermeslite -p` with one line naming it and the session, exit 1.

Faults from outside are planned for and tested here as they happen: MEMORY.md
holding bytes that are not UTF-8 (written by another editor) is one line naming
the file; a reply holding a lone surrogate (`\\ud800` in the server's JSON),
which no encoding can write, is shown and saved with U+FFFD in its place. The
catch-all for a bug is tested with a fault planted in the printer.
"""

from __future__ import annotations

from tests.cli_process import hermeslite, model_args, sessions_db
from tests.memory_files import LATIN1, spoil, unreadable
from tests.server import Reply, ScriptedServer
from tests.summary_requests import answer_summaries


def test_an_unreadable_memory_file_at_start_is_one_line_naming_it_and_leaves_no_empty_session(
    scripted_server: ScriptedServer, tmp_path
):
    home = tmp_path / "home"
    path = spoil(home / "data")
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 1
    assert done.stdout == "" and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line == f"hermeslite: {unreadable(path)}"
    assert scripted_server.requests == []
    with sessions_db(home) as store:
        assert store.list_sessions() == []
    assert path.read_bytes() == LATIN1


def test_an_unreadable_memory_file_met_by_a_compaction_is_one_line_and_keeps_the_question(
    scripted_server: ScriptedServer, tmp_path
):
    home = tmp_path / "home"
    answer_summaries(scripted_server)
    scripted_server.enqueue(Reply.text("first answer " * 400))
    config = tmp_path / "small.yaml"
    config.write_text("compression:\n  context_length: 6000\n")
    args = [*model_args(scripted_server), "--config", str(config)]
    assert hermeslite(["-p", "first question", *args], home, tmp_path).returncode == 0
    path = spoil(
        home / "data"
    )  # after the first run: the saved system prompt is reused, until a compaction rebuilds it
    failed = hermeslite(["-p", "second question " * 300, "--continue", *args], home, tmp_path)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    with sessions_db(home) as store:
        kept = [m["content"] for m in store.load_transcript(store.latest_session_id()) if m["role"] == "user"]
    assert failed.stderr.strip().splitlines()[-1] == f"hermeslite: {unreadable(path)}"
    assert kept[-1].startswith("second question")  # the question is in the saved session
    assert path.read_bytes() == LATIN1


def test_a_reply_holding_a_lone_surrogate_prints_a_replacement_character_and_is_saved(
    scripted_server: ScriptedServer, tmp_path
):
    home = tmp_path / "home"
    scripted_server.enqueue(Reply.text("a reply with a lone surrogate: \ud800 and on"))
    done = hermeslite(["-p", "first question", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "a reply with a lone surrogate: \ufffd and on"
    with sessions_db(home) as store:
        [reply] = [m["content"] for m in store.load_transcript(store.latest_session_id()) if m["role"] == "assistant"]
    assert reply == "a reply with a lone surrogate: \ufffd and on"


def test_a_fault_inside_a_turn_names_the_saved_session_and_verbose_shows_the_traceback(
    scripted_server: ScriptedServer, monkeypatch, capsys, home
):
    """Every fault from outside is handled, so the bug is planted: the printer fails on the second reply."""
    from hermeslite.cli import main
    from hermeslite.headless import HeadlessPrinter

    scripted_server.enqueue(Reply.text("first answer"), Reply.text("second answer"))
    args = model_args(scripted_server)
    assert main(["-p", "first question", *args]) == 0
    capsys.readouterr()

    def broken(self: HeadlessPrinter, event: object) -> None:
        raise RuntimeError("the printer broke\nsecond line")

    monkeypatch.setattr(HeadlessPrinter, "_on_TextDelta", broken)
    assert main(["-p", "second question", "--continue", "--verbose", *args]) == 1
    err = capsys.readouterr().err
    with sessions_db(home) as store:
        sid = store.latest_session_id()
        kept = [m["content"] for m in store.load_transcript(sid) if m["role"] == "user"]
    assert "Traceback (most recent call last)" in err and "RuntimeError: the printer broke" in err
    last = err.strip().splitlines()[-1]
    assert last == (
        "hermeslite: unexpected error: RuntimeError: the printer broke"
        f"; session {sid} is saved (hermeslite --resume {sid} continues it)"
    )
    assert kept == ["first question", "second question"]  # the question is in the saved session


def test_a_fault_while_setting_up_says_no_session_was_started(
    scripted_server: ScriptedServer, monkeypatch, capsys, home
):
    from hermeslite.agent import factory
    from hermeslite.cli import main

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the factory broke")

    monkeypatch.setattr(factory, "build_agent", broken)
    assert main(["-p", "hi", *model_args(scripted_server)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.strip().splitlines() == [
        "hermeslite: unexpected error: RuntimeError: the factory broke; no session was started "
        "(--verbose shows the traceback)"
    ]
    assert scripted_server.requests == []
