"""Custom commands and skills as a user runs hermeslite: `-p "/name args"` expands a command file as
Claude Code's -p does, piped text joins its arguments, the line chat runs command files and /skills,
and every file that cannot be used is one line on stderr while the run goes on."""

from __future__ import annotations

from pathlib import Path

from tests.cli_process import hermeslite, model_args
from tests.server import Reply


def command(project: Path, name: str, text: str) -> None:
    path = project / ".hermeslite" / "commands" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def user_texts(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


def test_p_expands_a_custom_command(scripted_server, tmp_path):
    command(tmp_path, "explain", "---\ndescription: Explain code\n---\nExplain $1 to a $2.")
    scripted_server.enqueue(Reply.text("It parses flags."))
    done = hermeslite(["-p", "/explain cli.py beginner", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 0, done.stderr
    assert user_texts(scripted_server.requests[0]) == ["Explain cli.py to a beginner."]
    assert done.stdout.strip() == "It parses flags."


def test_text_piped_after_a_custom_command_is_its_arguments(scripted_server, tmp_path):
    command(tmp_path, "review-diff", "Review this diff for bugs:\n\n$ARGUMENTS")
    scripted_server.enqueue(Reply.text("One bug."))
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    done = hermeslite(["-p", "/review-diff", *model_args(scripted_server)], tmp_path / "home", tmp_path, input=diff)
    assert done.returncode == 0, done.stderr
    assert user_texts(scripted_server.requests[0]) == [f"Review this diff for bugs:\n\n{diff.rstrip()}"]


def test_p_sends_a_built_in_command_name_or_an_unknown_one_as_it_is(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("a"), Reply.text("b"))
    for prompt in ("/context please", "/nothing here"):
        assert hermeslite(["-p", prompt, *model_args(scripted_server)], tmp_path / "home", tmp_path).returncode == 0
    assert [user_texts(b) for b in scripted_server.requests] == [["/context please"], ["/nothing here"]]


def test_refused_and_unreadable_files_are_one_line_each_and_the_run_goes_on(scripted_server, tmp_path):
    command(tmp_path, "help", "Tell me a joke.")
    command(tmp_path, "fine", "Say fine.")
    (tmp_path / ".hermeslite" / "commands" / "latin1.md").write_bytes(b"caf\xe9")
    skill = tmp_path / ".agents" / "skills" / "broken" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: broken\n---\nno description\n", encoding="utf-8")
    scripted_server.enqueue(Reply.text("fine"))
    done = hermeslite(["-p", "/fine", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "hermeslite: warning: skill .agents/skills/broken/SKILL.md is skipped: it has no description in its "
        "front matter",
        "hermeslite: warning: custom command .hermeslite/commands/latin1.md is skipped: not UTF-8 text "
        "(byte 0xe9 at offset 3)",
        "hermeslite: warning: /help from .hermeslite/commands/help.md is not offered: /help is a built-in command",
    ]
    assert user_texts(scripted_server.requests[0]) == ["Say fine."]


def test_the_line_chat_runs_command_files_and_lists_skills(scripted_server, tmp_path):
    home = tmp_path / "home"
    command(tmp_path, "review", "---\nargument-hint: <file>\n---\nReview $1.")
    user_command = home / "config" / "commands" / "standup.md"
    user_command.parent.mkdir(parents=True)
    user_command.write_text("---\ndescription: My standup\n---\nWhat did I do yesterday?", encoding="utf-8")
    skill = tmp_path / ".hermeslite" / "skills" / "lint" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: lint\ndescription: Run the linters.\n---\nRun ruff.\n", encoding="utf-8")
    scripted_server.enqueue(Reply.text("reviewed"), Reply.text("standup"))
    done = hermeslite(
        [*model_args(scripted_server)], home, tmp_path, input="/review a.py\n/standup\n/skills\n/help\n/quit\n"
    )
    assert done.returncode == 0, done.stderr
    assert user_texts(scripted_server.requests[-1]) == ["Review a.py.", "What did I do yesterday?"]
    assert "lint (project) · .hermeslite/skills/lint/SKILL.md" in done.stdout and "Run the linters." in done.stdout
    assert "/review <file>" in done.stderr and "/standup" in done.stderr and "My standup (user)" in done.stderr
