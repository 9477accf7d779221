"""/init and /context's instruction rows in the line chat, over a real agent (litellm over HTTP to the
scripted server): the model writes AGENTS.md with write_file, and never replaces one unasked."""

from __future__ import annotations

import io
from pathlib import Path

from hermeslite.headless import HeadlessPrinter
from hermeslite.line_chat import LineChat
from tests.project_repo import make_repo
from tests.server import Reply

WRITTEN = "# demo\n\nRun `make test` before committing.\nSources live in `src/`.\n"


def chat_on(agent) -> tuple[LineChat, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    agent.subscribe(HeadlessPrinter(out, err))
    return LineChat(agent, agent.deps.settings, agent.deps.store, out, err), out, err


def git_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    (folder / ".git").mkdir(parents=True)
    (folder / "Makefile").write_text("test:\n\tpytest -q\n")
    return folder


def user_text(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


async def test_init_has_the_model_write_agents_md_with_write_file(make_agent, scripted_server, tmp_path):
    folder = git_folder(tmp_path)
    agent, _ = make_agent(cwd=folder)
    chat, _, err = chat_on(agent)
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "AGENTS.md", "content": WRITTEN})]),
        Reply.text("AGENTS.md covers the test command and the layout."),
    )
    await chat.handle("/init")
    assert (folder / "AGENTS.md").read_text() == WRITTEN
    first = scripted_server.requests[0]
    prompt = user_text(first)
    assert prompt.startswith("/init: survey this repository and write AGENTS.md in the working directory.")
    assert "write it with write_file at AGENTS.md" in prompt
    assert "write_file" in [t["function"]["name"] for t in first["tools"]]
    assert "note: Wrote AGENTS.md (4 lines): new sessions read it; this one from its next compaction." in (
        err.getvalue().splitlines()
    )
    assert not chat.failed


async def test_init_on_an_existing_file_asks_first_and_writes_only_after_yes(make_agent, scripted_server, tmp_path):
    folder = git_folder(tmp_path)
    (folder / "AGENTS.md").write_text("Old notes.\n")
    agent, _ = make_agent(cwd=folder)
    chat, out, err = chat_on(agent)
    scripted_server.enqueue(Reply.text("I propose adding the test command. Shall I apply it?"))
    await chat.handle("/init")
    prompt = user_text(scripted_server.requests[0])
    assert prompt.startswith("/init: AGENTS.md already exists in the working directory.")
    assert "Do not write or patch AGENTS.md in this turn: change it only after I say yes." in prompt
    assert "write it with write_file" not in prompt
    assert (folder / "AGENTS.md").read_text() == "Old notes.\n"
    assert "note: AGENTS.md is unchanged: answer the model to have it apply the changes it proposes." in (
        err.getvalue().splitlines()
    )
    assert "Shall I apply it?" in out.getvalue()

    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "AGENTS.md", "content": WRITTEN})]), Reply.text("Applied.")
    )
    await chat.handle("yes, apply it")
    assert (folder / "AGENTS.md").read_text() == WRITTEN


async def test_init_takes_notes_and_names_other_agents_files(make_agent, scripted_server, tmp_path):
    folder = git_folder(tmp_path)
    (folder / "CLAUDE.md").write_text("Claude notes.\n")
    agent, _ = make_agent(cwd=folder)
    chat, _, err = chat_on(agent)
    await chat.handle("/init stress the release process")
    prompt = user_text(scripted_server.requests[0])
    assert prompt.endswith(
        "Other agents' instruction files are here (CLAUDE.md): keep what in them still holds.\n\n"
        "What I want it to stress: stress the release process"
    )
    assert "note: AGENTS.md was not written." in err.getvalue().splitlines()


async def test_init_writes_the_first_configured_name(make_agent, scripted_server, tmp_path):
    folder = git_folder(tmp_path)
    agent, _ = make_agent(cwd=folder, instructions={"files": ["CLAUDE.md"]})
    chat, _, _ = chat_on(agent)
    await chat.handle("/init")
    assert user_text(scripted_server.requests[0]).startswith("/init: survey this repository and write CLAUDE.md")


async def test_context_in_the_line_chat_has_the_row_and_names_the_files(make_agent, scripted_server, tmp_path):
    repo = make_repo(tmp_path)
    agent, _ = make_agent(cwd=repo.sub)
    chat, out, _ = chat_on(agent)
    await chat.handle("/context")
    lines = out.getvalue().splitlines()
    row = next(line for line in lines if line.startswith("  project instructions"))
    tokens = row.split()[2]
    assert int(tokens) > 0
    at = lines.index("Project instructions (in the system prompt):")
    assert lines[at + 1 : at + 3] == ["  ../AGENTS.md", "  AGENTS.md"]
    assert all(len(line) <= 70 for line in lines[: at + 3])


async def test_a_model_that_rewrites_an_existing_file_unasked_is_called_out(make_agent, scripted_server, tmp_path):
    folder = git_folder(tmp_path)
    (folder / "AGENTS.md").write_text("Old notes.\n")
    agent, _ = make_agent(cwd=folder)
    chat, _, err = chat_on(agent)
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "AGENTS.md", "content": WRITTEN})]), Reply.text("Rewrote it.")
    )
    await chat.handle("/init")
    assert (
        "note: AGENTS.md was changed (4 lines now) although the model was told to ask you first; "
        "new sessions read it; this one from its next compaction. /undo puts the old one back."
    ) in err.getvalue().splitlines()
    await chat.handle("/undo")
    assert (folder / "AGENTS.md").read_text() == "Old notes.\n"
