"""AGENTS.md as a user meets it from the command line: `hermeslite config`, `-p` with and without
--verbose, a file that cannot be read (permissions included), a changed file on --continue, and
/init piped into the line chat. Real processes, real HTTP to the scripted server."""

from __future__ import annotations

import ctypes
import os
import stat

from tests.cli_process import hermeslite, model_args
from tests.project_repo import ROOT_TEXT, SUB_TEXT, block, make_repo
from tests.server import Reply

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def without_dac_override() -> None:
    """For a child run as root: drop the capabilities that let root read any file, so a chmod 000 file
    is as unreadable to it as to anyone (the tests run as root here, as in many containers)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_config_lists_the_files_a_session_here_would_read(tmp_path):
    repo = make_repo(tmp_path)
    done = hermeslite(["config"], tmp_path / "home", repo.sub)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("# project instructions:"))
    assert line.startswith("# project instructions: ../AGENTS.md, AGENTS.md (~")
    assert "instructions:\n  files:\n  - AGENTS.md\n  - CLAUDE.md\n  max_bytes: 32768\n" in done.stdout
    empty = tmp_path / "empty"
    (empty / ".git").mkdir(parents=True)
    none = hermeslite(["config"], tmp_path / "home", empty)
    assert (
        f"# project instructions: none (looked for AGENTS.md or CLAUDE.md in {tmp_path / 'home' / 'config'} and in {empty})"
        in (none.stdout)
    )


def test_p_is_quiet_about_them_and_verbose_names_them(scripted_server, tmp_path):
    repo = make_repo(tmp_path)
    quiet = hermeslite(["-p", "hi", *model_args(scripted_server)], tmp_path / "home", repo.sub)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    system = scripted_server.requests[-1]["messages"][0]["content"]
    assert system.endswith(f"{block('../AGENTS.md', ROOT_TEXT)}\n\n{block('AGENTS.md', SUB_TEXT)}")
    loud = hermeslite(["-p", "hi", "--verbose", *model_args(scripted_server)], tmp_path / "home", repo.sub)
    assert loud.returncode == 0
    assert loud.stderr.splitlines()[0].startswith("note: Project instructions: ../AGENTS.md, AGENTS.md (~")


def test_a_file_that_is_not_utf8_is_one_line_and_the_answer_still_comes(scripted_server, tmp_path):
    repo = make_repo(tmp_path)
    (repo.sub / "AGENTS.md").write_bytes(b"\xff\xfeU\x00T\x00F\x00-\x001\x006\x00")
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], tmp_path / "home", repo.sub)
    assert done.returncode == 0 and done.stdout == "ok\n"
    assert done.stderr == (
        "hermeslite: warning: cannot read the instruction file AGENTS.md: not UTF-8 text (byte 0xff at offset 0); "
        "it is left out\n"
    )


def test_a_file_without_read_permission_is_one_line(scripted_server, tmp_path):
    repo = make_repo(tmp_path)
    (repo.sub / "AGENTS.md").chmod(0)
    preexec = without_dac_override if os.geteuid() == 0 else None
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], tmp_path / "home", repo.sub, preexec_fn=preexec)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "hermeslite: warning: cannot read the instruction file AGENTS.md: permission denied; it is left out\n"
    )
    system = scripted_server.requests[-1]["messages"][0]["content"]
    assert ROOT_TEXT in system and SUB_TEXT not in system
    assert stat.S_IMODE((repo.sub / "AGENTS.md").stat().st_mode) == 0  # left as it was


def test_continue_after_an_edit_keeps_the_saved_prompt_and_says_so(scripted_server, tmp_path):
    repo = make_repo(tmp_path)
    home = tmp_path / "home"
    assert hermeslite(["-p", "first", *model_args(scripted_server)], home, repo.sub).returncode == 0
    (repo.sub / "AGENTS.md").write_text("Sub rules, rewritten.\n")
    again = hermeslite(["-p", "second", "--continue", *model_args(scripted_server)], home, repo.sub)
    assert again.returncode == 0
    assert again.stderr.startswith("hermeslite: warning: The project instructions changed since this session's")
    first, second = (b["messages"][0]["content"] for b in scripted_server.requests)
    assert first == second and "rewritten" not in second


def test_init_piped_into_the_line_chat_writes_the_file(scripted_server, tmp_path):
    folder = tmp_path / "demo"
    (folder / ".git").mkdir(parents=True)
    scripted_server.enqueue(
        Reply.tool_calls([("write_file", {"path": "AGENTS.md", "content": "# demo\nRun `make`.\n"})]),
        Reply.text("Wrote it."),
    )
    done = hermeslite([*model_args(scripted_server)], tmp_path / "home", folder, input="/init\n/context\n")
    assert done.returncode == 0, done.stderr
    assert (folder / "AGENTS.md").read_text() == "# demo\nRun `make`.\n"
    assert "note: Wrote AGENTS.md (2 lines): new sessions read it; this one from its next compaction." in (
        done.stderr.splitlines()
    )
    assert "  project instructions" in done.stdout  # /context, in the session /init ran in: 0 until it compacts
    later = hermeslite(["-p", "hi", *model_args(scripted_server)], tmp_path / "home", folder)
    assert later.returncode == 0
    assert block("AGENTS.md", "# demo\nRun `make`.") in scripted_server.requests[-1]["messages"][0]["content"]


def test_a_bad_file_name_in_the_config_is_a_usage_error(tmp_path):
    (tmp_path / "hermeslite.yaml").write_text("instructions:\n  files: [../AGENTS.md]\n")
    done = hermeslite(["config"], tmp_path / "home", tmp_path)
    assert done.returncode == 2
    assert "instructions" in done.stderr and "files must be a list of file names (no folders)" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_a_cloned_repository_cannot_choose_which_files_go_to_the_provider(scripted_server, tmp_path):
    """`instructions.files` from an untrusted ./hermeslite.yaml is ignored: a repository naming `.env`
    would send the user's secrets in every request."""
    folder = tmp_path / "cloned"
    (folder / ".git").mkdir(parents=True)
    (folder / ".env").write_text("API_TOKEN=sk-local-secret-123\n")
    (folder / "hermeslite.yaml").write_text("instructions:\n  files: [.env]\n")
    home = tmp_path / "home"
    done = hermeslite(["-p", "hi", *model_args(scripted_server)], home, folder)
    assert done.returncode == 0
    assert "ignored instructions.files from ./hermeslite.yaml: this folder is not trusted" in done.stderr
    assert "sk-local-secret" not in str(scripted_server.requests[-1])
    assert hermeslite(["trust"], home, folder).returncode == 0
    trusted = hermeslite(["-p", "hi", *model_args(scripted_server)], home, folder)
    assert trusted.returncode == 0
    assert block(".env", "API_TOKEN=sk-local-secret-123") in scripted_server.requests[-1]["messages"][0]["content"]
