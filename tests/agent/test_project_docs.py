"""Which instruction files are read, in what order, under the cap, and how a bad one is one line.

Real files in a temporary git repository; nothing is mocked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermeslite.agent.project_docs import (
    FRAME,
    HEADING,
    candidate_folders,
    config_lines,
    find_root,
    load_project_docs,
    section_in,
)
from hermeslite.config import InstructionsConfig
from tests.project_repo import ABOVE_TEXT, CLAUDE_TEXT, ROOT_TEXT, SUB_TEXT, make_repo

NAMES = ("AGENTS.md", "CLAUDE.md")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The repository of tests/project_repo.py: its root (the cwd of a test is a folder in it)."""
    return make_repo(tmp_path).root


def load(cwd: Path, config_dir: Path, *, names=NAMES, max_bytes: int = 32_768):
    return load_project_docs(cwd, names, max_bytes, config_dir)


def test_root_first_down_to_the_working_directory_and_nothing_above_the_git_root(repo, tmp_path):
    docs = load(repo / "sub", tmp_path / "config")
    assert [f.shown for f in docs.files] == ["../AGENTS.md", "AGENTS.md"]
    assert [f.text for f in docs.files] == [ROOT_TEXT, SUB_TEXT]
    assert docs.problems == ()
    assert ABOVE_TEXT not in docs.prompt_section()


def test_claude_md_counts_only_in_a_folder_without_agents_md(repo, tmp_path):
    deeper = repo / "sub" / "claude"
    assert [f.shown for f in load(deeper, tmp_path / "config").files] == [
        "../../AGENTS.md",
        "../AGENTS.md",
        "CLAUDE.md",
    ]
    (deeper / "AGENTS.md").write_text("Agents rules win here.\n")
    assert [f.text for f in load(deeper, tmp_path / "config").files][-1] == "Agents rules win here."
    assert [f.shown for f in load(deeper, tmp_path / "config", names=["AGENTS.md"]).files][-1] == "AGENTS.md"
    only_agents = load(repo / "sub" / "claude", tmp_path / "none", names=["AGENTS.md"])
    assert all(CLAUDE_TEXT not in f.text for f in only_agents.files)
    assert load(deeper, tmp_path / "config", names=[]).files == ()


def test_the_global_file_comes_first(repo, tmp_path):
    config = tmp_path / "config"
    config.mkdir()
    (config / "AGENTS.md").write_text("Global: answer in English.\n")
    docs = load(repo / "sub", config)
    assert docs.files[0].text == "Global: answer in English."
    assert docs.files[0].shown == str(config / "AGENTS.md")  # far from the project: its full path
    assert len(docs.files) == 3


def test_the_root_is_found_by_a_git_file_too_and_without_git_it_is_the_filesystem_root(tmp_path):
    worktree = tmp_path / "wt"
    (worktree / "pkg").mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt\n")  # a worktree's .git is a file
    assert find_root(worktree / "pkg") == worktree
    assert candidate_folders(worktree / "pkg") == [worktree, worktree / "pkg"]
    plain = tmp_path / "plain" / "a"
    plain.mkdir(parents=True)
    assert find_root(plain) == Path(plain.anchor)
    assert candidate_folders(plain) == [Path("/"), *reversed(plain.parents[:-1]), plain]


def test_a_working_directory_that_is_the_root_reads_one_file(repo, tmp_path):
    assert [f.shown for f in load(repo, tmp_path / "config").files] == ["AGENTS.md"]


def test_the_prompt_section_frames_the_files_below_the_rules(repo, tmp_path):
    section = load(repo / "sub", tmp_path / "config").prompt_section()
    assert section == (
        f"{HEADING}\n\n{FRAME}\n\n"
        f'<instructions file="../AGENTS.md">\n{ROOT_TEXT}\n</instructions>\n\n'
        f'<instructions file="AGENTS.md">\n{SUB_TEXT}\n</instructions>'
    )
    assert "do not change them" in FRAME and "approval" in FRAME
    assert section_in(f"before\n\n{section}\n\nMEMORY after") == section
    assert section_in("no instructions here") == ""


def test_past_the_cap_the_crossing_file_is_cut_at_a_line_and_the_rest_left_out(repo, tmp_path):
    (repo / "AGENTS.md").write_text("".join(f"root line {n:04d}\n" for n in range(200)))  # 3,000 bytes
    (repo / "sub" / "AGENTS.md").write_text("never reached\n")
    docs = load(repo / "sub", tmp_path / "config", max_bytes=1024)
    assert [f.shown for f in docs.files] == ["../AGENTS.md"]
    cut = docs.files[0]
    assert cut.cut and cut.size == 3000 and cut.kept == 1020  # 68 whole lines of 15 bytes
    assert cut.text.endswith("root line 0067")
    assert "root line 0068" not in docs.prompt_section()
    assert "[… cut here: the instruction files are over their size cap (instructions.max_bytes)]" in (
        docs.prompt_section()
    )
    assert docs.problems == (
        "Project instructions are over their cap of 1 KiB (instructions.max_bytes): "
        "../AGENTS.md cut after 1020 B of 2.9 KiB; AGENTS.md left out",
    )
    assert docs.names() == ["../AGENTS.md (cut)"]


def test_a_file_that_fits_exactly_is_whole_and_the_next_is_left_out(repo, tmp_path):
    (repo / "AGENTS.md").write_bytes(b"x" * 1023 + b"\n")
    docs = load(repo / "sub", tmp_path / "config", max_bytes=1024)
    assert not docs.files[0].cut
    assert docs.problems == (
        "Project instructions are over their cap of 1 KiB (instructions.max_bytes): AGENTS.md left out",
    )


def test_a_cut_without_a_line_break_ends_on_a_character_boundary(repo, tmp_path):
    (repo / "AGENTS.md").write_text("é" * 2000)  # 4,000 bytes of two-byte characters, no newline
    docs = load(repo, tmp_path / "config", max_bytes=1025)
    assert docs.files[0].text == "é" * 512 and docs.files[0].kept == 1024


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda p: p.write_bytes(b"fine\n\xff\xfe broken\n"), "not UTF-8 text (byte 0xff at offset 5)"),
        (lambda p: p.mkdir(), "a directory, not a file"),
        (lambda p: os.mkfifo(p), "not a regular file"),  # must not hang the start-up
        (lambda p: p.symlink_to(p.parent / "missing.md"), "a broken link"),
    ],
    ids=["not-utf8", "directory", "fifo", "broken-link"],
)
def test_an_unreadable_file_is_one_line_and_the_others_still_count(repo, tmp_path, make, why):
    target = repo / "sub" / "AGENTS.md"
    target.unlink()
    make(target)
    docs = load(repo / "sub", tmp_path / "config")
    assert docs.problems == (f"cannot read the instruction file AGENTS.md: {why}; it is left out",)
    assert [f.shown for f in docs.files] == ["../AGENTS.md"]


def test_an_empty_file_adds_nothing_and_hides_claude_md(repo, tmp_path):
    deeper = repo / "sub" / "claude"
    (deeper / "AGENTS.md").write_text("\n  \n")
    docs = load(deeper, tmp_path / "config")
    assert [f.shown for f in docs.files] == ["../../AGENTS.md", "../AGENTS.md"] and docs.problems == ()


def test_one_file_reached_twice_is_read_once(repo):
    docs = load(repo / "sub", repo)  # the config dir is the repository root itself
    assert [f.shown for f in docs.files] == ["../AGENTS.md", "AGENTS.md"]


def test_a_bom_is_dropped(repo, tmp_path):
    (repo / "AGENTS.md").write_bytes("\ufeffRoot with a BOM\n".encode())
    assert load(repo, tmp_path / "config").files[0].text == "Root with a BOM"


def test_config_lines_name_the_files_or_where_they_were_looked_for(repo, tmp_path):
    config = tmp_path / "config"
    tokens = -(-len(load(repo / "sub", config).prompt_section()) // 4)  # what the prompt carries, ~4 chars a token
    assert config_lines(repo / "sub", NAMES, 32_768, config) == [
        f"project instructions: ../AGENTS.md, AGENTS.md (~{tokens} tokens)"
    ]
    bare = tmp_path / "bare"
    (bare / ".git").mkdir(parents=True)
    assert config_lines(bare, NAMES, 32_768, config) == [
        f"project instructions: none (looked for AGENTS.md or CLAUDE.md in {config} and in {bare})"
    ]
    assert config_lines(bare, [], 32_768, config) == ["project instructions: none (instructions.files is empty)"]


@pytest.mark.parametrize("bad", [["../AGENTS.md"], ["docs/AGENTS.md"], [""], [".."], [" AGENTS.md"], "AGENTS.md"])
def test_file_names_must_be_names_not_paths(bad):
    with pytest.raises(ValueError, match="files must be a list of file names"):
        InstructionsConfig(files=bad)
