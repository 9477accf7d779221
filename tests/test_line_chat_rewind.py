"""/rewind, /undo and /diff in the line chat: lists and previews on stdout, reports on stderr, files
changed by hand restored only with --force, the diff coloured only on a terminal."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from hermeslite.agent.factory import build_agent
from hermeslite.config import Settings
from hermeslite.headless import HeadlessPrinter
from hermeslite.line_chat import LineChat
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.checkpoint_files import plain_project, tree_state, write
from tests.server import MODEL, Reply


class Terminal(io.StringIO):
    """stdout as a terminal: the diff is coloured."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def line_chat(scripted_server, tmp_path):
    def make():
        project = plain_project(tmp_path / "proj")
        settings = replace(
            Settings(), model=ModelConfig(name=MODEL, api_base=scripted_server.base_url, context_window=100_000)
        )
        store = SessionStore(tmp_path / "sessions.db")
        agent = build_agent(
            settings, cwd=project, interactive=False, llm=LiteLLMClient(settings.model, max_retries=0), store=store
        )
        out, err = io.StringIO(), io.StringIO()
        agent.subscribe(HeadlessPrinter(out, err))
        return LineChat(agent, settings, store, out, err), out, err, project

    return make


async def edit_turn(chat: LineChat, server, text: str, path: str, content: str) -> None:
    server.enqueue(Reply.tool_calls([("write_file", {"path": path, "content": content})]), Reply.text("done"))
    await chat.handle(text)


async def test_rewind_lists_previews_and_restores_only_with_a_choice(line_chat, scripted_server):
    chat, out, err, project = line_chat()
    start = tree_state(project)
    await edit_turn(chat, scripted_server, "first edit", "notes.txt", "one\n")
    await edit_turn(chat, scripted_server, "second edit", "src/app.py", "two\n")
    out.truncate(0), out.seek(0)

    await chat.handle("/rewind")
    listing = out.getvalue()
    assert "1  " in listing and "first edit" in listing and "second edit" in listing and "1 file" in listing

    await chat.handle("/rewind 1")
    assert "Rewind to before turn 1" in out.getvalue() and "notes.txt" in out.getvalue()
    assert "Nothing changed yet" in err.getvalue()
    assert (project / "src/app.py").read_text() == "two\n"  # a preview changes nothing

    await chat.handle("/rewind 1 code")
    assert tree_state(project) == start
    assert "Rewound to before turn 1: files: 2 written back" in err.getvalue()
    assert not chat.failed


async def test_a_file_changed_by_hand_needs_force(line_chat, scripted_server):
    chat, out, err, project = line_chat()
    await edit_turn(chat, scripted_server, "edit", "notes.txt", "agent\n")
    write(project / "notes.txt", "mine\n")

    await chat.handle("/undo")
    assert " ! notes.txt" in out.getvalue()
    assert "Nothing restored: 1 file(s) changed by hand (marked !); /undo --force overwrites them." in err.getvalue()
    assert chat.failed and (project / "notes.txt").read_text() == "mine\n"

    await chat.handle("/undo --force")
    assert (project / "notes.txt").read_bytes() == b"line one\r\nline two\r\n"
    assert "Undid turn 1" in err.getvalue()


async def test_diff_is_plain_in_a_pipe_and_coloured_on_a_terminal(line_chat, scripted_server):
    chat, out, err, _ = line_chat()
    await edit_turn(chat, scripted_server, "edit", "src/app.py", "def main():\n    return 3\n")
    out.truncate(0), out.seek(0)
    await chat.handle("/diff")
    assert "-    return 1\n+    return 3" in out.getvalue() and "\x1b[" not in out.getvalue()
    assert "Changes in this session (before turn 1 → now)" in err.getvalue()

    tty_out = Terminal()
    await LineChat(chat.agent, chat.settings, chat.store, tty_out, io.StringIO()).handle("/diff 1")
    assert "\x1b[31m-    return 1\x1b[0m" in tty_out.getvalue() and "\x1b[32m+    return 3\x1b[0m" in tty_out.getvalue()


async def test_bad_arguments_are_one_line(line_chat):
    chat, _, err, _ = line_chat()
    await chat.handle("/rewind 2 sideways")
    await chat.handle("/rewind 7 code")
    await chat.handle("/undo now")
    await chat.handle("/diff x")
    lines = err.getvalue().splitlines()
    assert lines == [
        "/rewind: 'sideways' is not a turn number, both, code, chat or --force. "
        "Usage: /rewind [N] [both|code|chat] [--force]",
        "Cannot rewind: there is no turn 7 (this session has 0); /rewind lists them.",
        "usage: /undo [--force]",
        "usage: /diff [N]  (N: a turn number, as /rewind lists them)",
    ]
