"""The shadow repository against real files: snapshots are exact, restores put back bytes and modes, and
the project's own .git (and nested repositories) are never read as content nor written."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from hermeslite.paths import data_dir
from hermeslite.store.checkpoints import open_repo, store_dir
from hermeslite.store.shadow_git import CheckpointError, ShadowGit, find_git
from hermeslite.store.shadow_prune import prune
from hermeslite.store.shadow_repo import PLACEHOLDER, Limits, ShadowRepo
from hermeslite.store.shadow_restore import DELETE, RECREATE, TreeChanged, apply_restore, plan_restore
from tests.checkpoint_files import changed, dir_hash, git, git_project, plain_project, tree_state, write


def shadow(project: Path, **limits) -> ShadowRepo:
    return open_repo(project, Limits(**limits))


def tree_listing(repo: ShadowRepo, commit: str) -> list[str]:
    return repo.git.run("ls-tree", "-r", commit).decode().splitlines()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return plain_project(tmp_path / "proj")


def test_a_restore_puts_back_exact_bytes_modes_and_links_and_deletes_what_was_created(project: Path):
    repo = shadow(project)
    before = tree_state(project)
    first = repo.snapshot("s1")
    write(project / "notes.txt", "rewritten\n")
    os.chmod(project / "run.sh", 0o644)
    (project / "secret.env").unlink()
    (project / "link-to-notes").unlink()
    os.symlink("run.sh", project / "link-to-notes")
    write(project / "new/deeper/made.txt", "created after\n")
    write(project / "debug.log", "an ignored file changes\n")
    repo.snapshot("s1")

    plan = plan_restore(repo, "s1", first.commit)
    actions = {c.path: c.action for c in plan.changes}
    assert actions["new/deeper/made.txt"] == DELETE and actions["secret.env"] == RECREATE
    assert "debug.log" not in actions and not plan.hand_changed
    done = apply_restore(repo, "s1", plan)

    assert done.problems == []
    after = tree_state(project)
    assert changed(before, after) == {"debug.log": (before["debug.log"], after["debug.log"])}  # ignored: untouched
    assert after["notes.txt"][1] == b"line one\r\nline two\r\n"  # text=auto did not normalize it
    assert after["secret.env"][0] & 0o777 == 0o600
    assert after["run.sh"][0] & 0o777 == 0o755


def test_the_snapshot_keeps_crlf_and_exec_bits_whatever_the_projects_attributes_say(project: Path):
    repo = shadow(project)
    commit = repo.snapshot("s1").commit
    blob = repo.git.run("cat-file", "-p", f"{commit}:notes.txt")
    assert blob == b"line one\r\nline two\r\n"
    assert any(line.startswith("100755 ") and line.endswith("run.sh") for line in tree_listing(repo, commit))
    assert repo.modes(commit) == {"secret.env": 0o600}


def test_an_unchanged_tree_makes_no_new_commit_and_a_change_lists_its_paths(project: Path):
    repo = shadow(project)
    first = repo.snapshot("s1")
    assert repo.snapshot("s1").commit == first.commit
    write(project / "src/app.py", "changed\n")
    second = repo.snapshot("s1")
    assert second.commit != first.commit and second.paths == ("src/app.py",)


def test_the_users_git_is_byte_identical_and_never_snapshotted(tmp_path: Path):
    project = git_project(tmp_path / "repo")
    status_before = git(project, "status", "--porcelain")
    stash_before = git(project, "stash", "list")
    before = dir_hash(project / ".git")
    repo = shadow(project)
    first = repo.snapshot("s1")
    write(project / "src/app.py", "agent edit\n")
    (project / "staged.txt").unlink()
    repo.snapshot("s1")
    apply_restore(repo, "s1", plan_restore(repo, "s1", first.commit))

    assert dir_hash(project / ".git") == before
    assert git(project, "status", "--porcelain") == status_before
    assert git(project, "stash", "list") == stash_before
    assert not any(".git/" in line or line.endswith("\t.git") for line in tree_listing(repo, first.commit))
    assert repo.git.git_dir == store_dir(project.resolve()) / "git"
    assert data_dir() in repo.git.git_dir.parents


def test_nested_repositories_are_walked_as_folders_not_added_as_submodules(tmp_path: Path):
    project = tmp_path / "proj"
    write(project / "top.txt", "top\n")
    write(project / "vendor/lib/code.py", "x = 1\n")
    git(project / "vendor/lib", "init", "-q")
    git(project / "vendor/lib", "add", "-A")
    git(project / "vendor/lib", "commit", "-qm", "lib")
    write(project / "fresh/new.py", "y = 2\n")
    git(project / "fresh", "init", "-q")  # no commit yet: `git add` of it as a link would fail
    nested_before = (dir_hash(project / "vendor/lib/.git"), dir_hash(project / "fresh/.git"))
    repo = shadow(project)

    commit = repo.snapshot("s1").commit
    listing = tree_listing(repo, commit)
    assert not [line for line in listing if line.startswith("160000")], listing  # no gitlinks
    paths = sorted(line.split("\t")[1] for line in listing)
    assert paths == ["fresh/new.py", "top.txt", "vendor/lib/code.py"]
    write(project / "vendor/lib/code.py", "x = 2\n")
    apply_restore(repo, "s1", plan_restore(repo, "s1", commit))
    assert (project / "vendor/lib/code.py").read_text() == "x = 1\n"
    assert (dir_hash(project / "vendor/lib/.git"), dir_hash(project / "fresh/.git")) == nested_before
    assert not any(PLACEHOLDER in p for p in paths)


def test_files_over_the_size_limit_are_left_out_named_once_and_never_restored(project: Path):
    repo = shadow(project, max_file_bytes=2000)
    write(project / "big.bin", b"x" * 5000)
    first = repo.snapshot("s1")
    assert first.skipped == ("big.bin",)
    assert repo.snapshot("s1").skipped == ()  # named once
    write(project / "data.bin", b"y" * 5000)  # a tracked file grows past the limit: it leaves the snapshots
    second = repo.snapshot("s1")
    assert second.skipped == ("data.bin",) and "data.bin" in second.paths
    plan = plan_restore(repo, "s1", first.commit)
    assert "data.bin" in plan.left_alone and all(c.path not in ("data.bin", "big.bin") for c in plan.changes)


def test_excluded_patterns_and_newly_ignored_files_are_left_out_and_left_alone(project: Path):
    repo = shadow(project, exclude=("private/",))
    write(project / "private/keys.txt", "mine\n")
    first = repo.snapshot("s1")
    assert not any("private/" in line for line in tree_listing(repo, first.commit))
    write(project / ".gitignore", "*.log\nbuild/\nsrc/\n")  # now src/ is ignored: it leaves the snapshots
    write(project / "src/app.py", "edited while ignored\n")
    second = repo.snapshot("s1")
    assert not any("src/" in line for line in tree_listing(repo, second.commit))
    plan = plan_restore(repo, "s1", first.commit)
    assert "src/app.py" in plan.left_alone and "src/app.py" not in [c.path for c in plan.changes]
    apply_restore(repo, "s1", plan)
    assert (project / "src/app.py").read_text() == "edited while ignored\n"
    assert (project / "private/keys.txt").read_text() == "mine\n"


def test_files_changed_by_hand_since_the_last_snapshot_are_named(project: Path):
    repo = shadow(project)
    first = repo.snapshot("s1")
    write(project / "notes.txt", "the agent's edit\n")
    repo.snapshot("s1")
    write(project / "notes.txt", "then the user's edit\n")
    plan = plan_restore(repo, "s1", first.commit)
    assert plan.hand_changed == ("notes.txt",)


def test_a_restore_stops_when_the_files_changed_after_the_preview(project: Path):
    repo = shadow(project)
    first = repo.snapshot("s1")
    write(project / "notes.txt", "edit\n")
    plan = plan_restore(repo, "s1", first.commit)
    write(project / "notes.txt", "another edit after the preview\n")
    with pytest.raises(TreeChanged):
        apply_restore(repo, "s1", plan)
    assert (project / "notes.txt").read_text() == "another edit after the preview\n"


def test_a_symlink_put_where_a_folder_was_cannot_carry_a_restore_outside(tmp_path: Path):
    project = tmp_path / "proj"
    outside = tmp_path / "outside"
    outside.mkdir()
    write(project / "src/app.py", "original\n")
    repo = shadow(project)
    first = repo.snapshot("s1")
    repo.snapshot("s1")
    shutil.rmtree(project / "src")
    os.symlink(outside, project / "src")
    repo.snapshot("s1")
    done = apply_restore(repo, "s1", plan_restore(repo, "s1", first.commit))
    assert list(outside.iterdir()) == []  # nothing written through the link
    assert (project / "src/app.py").read_text() == "original\n"  # the link went (it was created since)
    assert done.problems == []


def test_the_home_folder_and_an_oversized_project_are_refused_with_a_reason(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(CheckpointError, match="home folder"):
        shadow(tmp_path)
    project = tmp_path / "many"
    for n in range(5):
        write(project / f"f{n}.txt", "x")
    with pytest.raises(CheckpointError, match=r"more than 3 files \(checkpoints.max_files\)"):
        shadow(project, max_files=3).snapshot("s1")


def test_no_git_on_path_is_one_clear_reason(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(CheckpointError, match=r"^git is not installed$"):
        find_git()


def test_an_inherited_git_environment_cannot_redirect_the_shadow_repository(project: Path, tmp_path: Path, monkeypatch):
    """A parent process (a git hook, a script) may have GIT_DIR or GIT_INDEX_FILE set; they must not leak in."""
    decoy = tmp_path / "decoy.git"
    subprocess.run(["git", "init", "-q", "--bare", str(decoy)], check=True)
    monkeypatch.setenv("GIT_DIR", str(decoy))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "decoy-index"))
    before = dir_hash(decoy)
    repo = shadow(project)
    repo.snapshot("s1")
    assert dir_hash(decoy) == before and not (tmp_path / "decoy-index").exists()


def test_old_sessions_are_pruned_by_age_then_by_size(project: Path):
    repo = shadow(project)
    for sid in ("old", "mid", "new"):
        write(project / f"{sid}.bin", os.urandom(200_000))
        repo.snapshot(sid)
    now = time.time() + 10 * 86_400
    heads = {sid: repo.head(sid) for sid in ("old", "mid", "new")}
    dropped = prune(repo, keep_days=5, max_bytes=10**9, keep={"new"}, now=now)
    assert set(dropped) == {"old", "mid"}
    assert [sid for sid, _ in repo.sessions()] == ["new"]
    # the snapshots are gone from the store, not only their names: nothing (a reflog) keeps them
    assert {sid for sid, head in heads.items() if head and repo.exists(head)} == {"new"}
    write(project / "more.bin", os.urandom(200_000))
    repo.snapshot("newer")
    write(project / "most.bin", os.urandom(200_000))
    repo.snapshot("today")
    assert prune(repo, keep_days=365, max_bytes=1, keep={"newer"}) == []  # "new" and "today" are recent
    dropped = prune(repo, keep_days=365, max_bytes=1, keep={"newer"}, now=now)
    assert dropped == ["new", "today"] and [sid for sid, _ in repo.sessions()] == ["newer"]


def test_a_preview_waits_for_another_sessions_prune_and_then_says_the_snapshot_is_gone(project: Path):
    """Two sessions in one project: one's prune (`gc`) must not pull objects from under the other's
    /rewind preview, which would fail on a bad object instead of saying the snapshot was pruned."""
    import threading

    first = shadow(project)
    target = first.snapshot("old").commit
    write(project / "notes.txt", "changed\n")
    first.snapshot("old")
    pruning = shadow(project)  # the other session: its own ShadowGit, the same store and lock file
    write(project / "notes.txt", "changed again\n")
    pruning.snapshot("new")  # the store's HEAD moves on: nothing but "old"'s ref reaches its snapshots
    outcome: list[object] = []

    def preview() -> None:
        try:
            outcome.append(plan_restore(first, "old", target))
        except CheckpointError as exc:
            outcome.append(exc)

    with pruning.git.locked():
        reader = threading.Thread(target=preview)
        reader.start()
        pruning.drop(["old"])
    reader.join()
    [result] = outcome
    assert isinstance(result, CheckpointError) and "no longer in the store" in str(result)


def test_the_lock_is_re_entrant_in_one_thread_and_exclusive_between_threads(project: Path):
    import threading

    repo = shadow(project)
    inside = threading.Event()
    with repo.git.locked(), repo.git.locked():  # a restore holds it across its own snapshots
        probe = threading.Thread(target=lambda: (repo.snapshot("s1"), inside.set()))
        probe.start()
        assert not inside.wait(0.2)  # another thread waits while this one holds it
    probe.join()
    assert inside.is_set()


def test_the_shadow_git_runs_no_hook_and_reads_no_user_config(project: Path, tmp_path: Path, monkeypatch):
    """A global config with a hooks path and a filter driver, as a user's ~/.gitconfig may have, is not read."""
    hooks = tmp_path / "hooks"
    write(hooks / "post-commit", "#!/bin/sh\ntouch " + str(tmp_path / "hook-ran") + "\n", 0o755)
    write(hooks / "reference-transaction", "#!/bin/sh\ntouch " + str(tmp_path / "hook-ran") + "\n", 0o755)
    config = write(
        tmp_path / "gitconfig",
        f'[core]\n\thooksPath = {hooks}\n[filter "up"]\n\tclean = tr a-z A-Z\n',
    )
    write(project / ".gitattributes", "* filter=up\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    repo = shadow(project)
    commit = repo.snapshot("s1").commit
    assert repo.git.run("cat-file", "-p", f"{commit}:src/app.py") == b"def main():\n    return 1\n"
    assert not (tmp_path / "hook-ran").exists()


def test_git_dir_and_work_tree_are_set_explicitly(project: Path):
    git_ = ShadowGit(find_git(), project.parent / "store", project)
    assert git_.env["GIT_DIR"] == str(project.parent / "store")
    assert git_.env["GIT_WORK_TREE"] == str(project)
    assert git_.env["GIT_INDEX_FILE"] == str(project.parent / "store" / "index")
    assert git_.env["GIT_CONFIG_NOSYSTEM"] == "1" and git_.env["GIT_CONFIG_GLOBAL"] == os.devnull
