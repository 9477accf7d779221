"""Command files: where they are read from, what they are called, how their text is filled in, and
one line for each file that cannot be used while the others still load."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermeslite.extensions.command_files import expand, load_command_files
from hermeslite.paths import config_dir


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".hermeslite" / "commands").mkdir(parents=True)
    return root


def commands_of(project: Path) -> Path:
    return project / ".hermeslite" / "commands"


def user_commands() -> Path:
    return config_dir() / "commands"


# -- expanding ---------------------------------------------------------------------------


def test_arguments_and_positional_words_fill_the_template():
    template = "Review $1 for $2. All: $ARGUMENTS. Missing: [$3]"
    assert expand(template, 'src/app.py "thread safety"') == (
        'Review src/app.py for thread safety. All: src/app.py "thread safety". Missing: []'
    )


def test_dollar_ten_is_not_the_first_word_and_arguments_are_not_expanded_twice():
    assert expand("$10 and $1", "$ARGUMENTS $2") == "$10 and $ARGUMENTS"


def test_arguments_to_a_template_without_placeholders_are_appended_not_dropped():
    assert expand("Summarize the diff.", "only the tests") == "Summarize the diff.\n\nARGUMENTS: only the tests"
    assert expand("Summarize the diff.", "") == "Summarize the diff."


def test_an_unbalanced_quote_splits_on_spaces():
    assert expand("[$1] [$2]", "it's fine") == "[it's] [fine]"


# -- loading -----------------------------------------------------------------------------


def test_project_and_user_files_load_with_folders_as_name_prefixes(project: Path):
    write(
        commands_of(project) / "review.md", "---\ndescription: Review a file\nargument-hint: [file]\n---\nReview $1\n"
    )
    write(commands_of(project) / "git" / "Commit.md", "# Write a commit message\n\nfor the staged changes")
    write(user_commands() / "standup.md", "What did I do yesterday?")
    loaded = load_command_files(project)
    assert loaded.problems == ()
    by_name = {c.name: c for c in loaded.commands}
    assert list(by_name) == ["git:commit", "review", "standup"]
    assert (by_name["review"].description, by_name["review"].argument_hint, by_name["review"].scope) == (
        "Review a file",
        "[file]",
        "project",
    )
    assert by_name["git:commit"].description == "Write a commit message"  # the first line, without the #
    assert by_name["standup"].scope == "user" and by_name["standup"].expand("") == "What did I do yesterday?"


def test_the_user_command_wins_a_name_and_the_project_file_is_named(project: Path):
    write(commands_of(project) / "review.md", "the project's review")
    write(user_commands() / "review.md", "my review")
    loaded = load_command_files(project)
    assert [c.template for c in loaded.commands] == ["my review"]
    assert loaded.problems == (
        "custom command .hermeslite/commands/review.md is skipped: /review is already defined by "
        f"{user_commands() / 'review.md'} (the user's command wins over the project's)",
    )


def test_each_bad_file_is_one_line_and_the_rest_load(project: Path):
    folder = commands_of(project)
    write(folder / "good.md", "fine")
    (folder / "latin1.md").write_bytes(b"caf\xe9")
    (folder / "dir.md").mkdir()
    write(folder / "broken.md", "---\ndescription: x\n  - nested: [\n---\nbody")
    write(folder / "empty.md", "---\ndescription: nothing after\n---\n\n")
    write(folder / "has space.md", "text")
    os.mkfifo(folder / "fifo.md")
    write(folder / ".hidden.md", "never read")
    loaded = load_command_files(project)
    assert [c.name for c in loaded.commands] == ["good"]
    assert sorted(loaded.problems) == [
        "custom command .hermeslite/commands/broken.md is skipped: its front matter is not valid YAML "
        "(line 3: mapping values are not allowed here)",
        "custom command .hermeslite/commands/empty.md is skipped: it has no text to send",
        "custom command .hermeslite/commands/fifo.md is skipped: it is not a regular file",
        "custom command .hermeslite/commands/has space.md is skipped: /has space is not a usable name "
        "(letters, digits, - and _ only)",
        "custom command .hermeslite/commands/latin1.md is skipped: not UTF-8 text (byte 0xe9 at offset 3)",
    ]


def test_a_project_file_linking_out_of_the_project_is_refused(project: Path, tmp_path: Path):
    secret = write(tmp_path / "outside" / "credentials", "aws_secret_access_key = abc")
    (commands_of(project) / "review.md").symlink_to(secret)
    loaded = load_command_files(project)
    assert loaded.commands == ()
    assert loaded.problems == (
        f"custom command .hermeslite/commands/review.md is skipped: it links to {secret}, outside the project",
    )


def test_a_user_file_may_link_anywhere(project: Path, tmp_path: Path):
    shared = write(tmp_path / "dotfiles" / "review.md", "my shared review")
    user_commands().mkdir(parents=True)
    (user_commands() / "review.md").symlink_to(shared)
    assert [c.template for c in load_command_files(project).commands] == ["my shared review"]


def test_hermeslite_home_moves_the_user_folder(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HERMESLITE_HOME", str(tmp_path / "elsewhere"))
    write(tmp_path / "elsewhere" / "config" / "commands" / "mine.md", "mine")
    assert [c.name for c in load_command_files(project).commands] == ["mine"]


def test_no_folders_no_commands(tmp_path: Path):
    assert load_command_files(tmp_path) == load_command_files(tmp_path / "missing")
    assert load_command_files(tmp_path).commands == ()
