"""MemoryStore: MEMORY.md / USER.md entries, limits, locking, snapshot."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermeslite.config import MemoryConfig
from hermeslite.store.memory import ENTRY_DELIMITER, LOCK_NAME, MemoryStore, MemoryUnreadable, parse_entries

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "mem")


def test_add_writes_entries_with_delimiter(store: MemoryStore):
    assert store.add("memory", "Uses uv, not pip").ok
    assert store.add("memory", "  Tests run with pytest -q  ").ok
    assert store.entries("memory") == ["Uses uv, not pip", "Tests run with pytest -q"]
    text = (store.folder / "MEMORY.md").read_text(encoding="utf-8")
    assert ENTRY_DELIMITER in text
    assert store.entries("user") == []


def test_user_target_goes_to_user_md(store: MemoryStore):
    assert store.add("user", "Prefers short answers").ok
    assert (store.folder / "USER.md").read_text(encoding="utf-8").strip() == "Prefers short answers"
    assert not (store.folder / "MEMORY.md").exists()


@pytest.mark.parametrize("content", ["", "   \n ", None])
def test_add_rejects_empty(store: MemoryStore, content):
    result = store.add("memory", content)
    assert not result.ok and "empty" in result.message


def test_add_rejects_exact_and_whitespace_duplicates(store: MemoryStore):
    assert store.add("memory", "Project uses ruff for lint").ok
    for dup in ["Project uses ruff for lint", "  Project   uses ruff\nfor lint "]:
        result = store.add("memory", dup)
        assert not result.ok and "already" in result.message
    assert len(store.entries("memory")) == 1


def test_add_rejects_delimiter_line(store: MemoryStore):
    result = store.add("memory", "one\n§\ntwo")
    assert not result.ok and "§" in result.message


def test_unknown_target_is_an_error_not_a_crash(store: MemoryStore):
    result = store.add("notes", "x")
    assert not result.ok and "memory" in result.message and "user" in result.message


def test_limit_message_names_usage_entry_size_and_consolidation(tmp_path: Path):
    store = MemoryStore(tmp_path, memory_limit=100)
    assert store.add("memory", "a" * 60).ok
    result = store.add("memory", "b" * 50)
    assert not result.ok
    assert "60/100 chars" in result.message
    assert "50 chars" in result.message
    assert "replace" in result.message and "remove" in result.message
    assert store.entries("memory") == ["a" * 60]


def test_limit_counts_delimiters_exactly(tmp_path: Path):
    store = MemoryStore(tmp_path, memory_limit=20)
    assert store.add("memory", "x" * 8).ok
    assert store.add("memory", "y" * 9).ok  # 8 + 3 + 9 == 20
    assert store.usage("memory") == (20, 20)
    assert not store.add("memory", "z").ok


def test_replace_by_unique_substring(store: MemoryStore):
    store.add("memory", "Deploy with make deploy")
    store.add("memory", "Database is postgres 15")
    result = store.replace("memory", "postgres", "Database is postgres 16")
    assert result.ok, result.message
    assert store.entries("memory") == ["Deploy with make deploy", "Database is postgres 16"]


def test_replace_matches_ignoring_whitespace_when_exact_fails(store: MemoryStore):
    store.add("memory", "Run   the linter before commits")
    assert store.replace("memory", "Run the linter", "Run ruff before commits").ok
    assert store.entries("memory") == ["Run ruff before commits"]


def test_replace_respects_limit(tmp_path: Path):
    store = MemoryStore(tmp_path, memory_limit=30)
    store.add("memory", "short")
    result = store.replace("memory", "short", "x" * 40)
    assert not result.ok and "/30 chars" in result.message and "40 chars" in result.message
    assert store.entries("memory") == ["short"]


def test_replace_and_remove_with_no_match(store: MemoryStore):
    store.add("memory", "alpha")
    for result in (store.replace("memory", "beta", "gamma"), store.remove("memory", "beta")):
        assert not result.ok and "no entry" in result.message


def test_ambiguous_substring_lists_previews_and_asks_for_more(store: MemoryStore):
    store.add("memory", "The API key lives in .env")
    store.add("memory", "The API docs are at /docs")
    store.add("memory", "Unrelated")
    result = store.remove("memory", "The API")
    assert not result.ok
    assert "2 entries" in result.message
    assert "The API key lives in .env" in result.message and "The API docs are at /docs" in result.message
    assert "Unrelated" not in result.message
    assert "specific" in result.message
    assert len(store.entries("memory")) == 3


def test_ambiguity_preview_is_short(store: MemoryStore):
    store.add("memory", "common " + "x" * 500)
    store.add("memory", "common " + "y" * 500)
    result = store.remove("memory", "common")
    assert not result.ok and len(result.message) < 400


def test_remove(store: MemoryStore):
    store.add("user", "Name is Ada")
    store.add("user", "Timezone CET")
    assert store.remove("user", "Ada").ok
    assert store.entries("user") == ["Timezone CET"]
    assert store.remove("user", "CET").ok
    assert store.entries("user") == []
    assert store.snapshot() == ""


def test_atomic_write_leaves_no_temp_files(store: MemoryStore):
    for i in range(5):
        store.add("memory", f"fact {i}")
    store.replace("memory", "fact 2", "fact two")
    store.remove("memory", "fact 3")
    names = sorted(p.name for p in store.folder.iterdir())
    assert names == [".memory.lock", "MEMORY.md"]


def test_failed_write_cleans_its_temp_file(store: MemoryStore, monkeypatch):
    store.add("memory", "kept")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        store.add("memory", "lost")
    monkeypatch.undo()
    assert store.entries("memory") == ["kept"]
    assert not [p for p in store.folder.iterdir() if p.name.endswith(".tmp")]


def test_two_stores_on_one_folder_see_each_others_writes(tmp_path: Path):
    a, b = MemoryStore(tmp_path), MemoryStore(tmp_path)
    assert a.add("memory", "from a").ok
    assert b.add("memory", "from b").ok
    assert a.entries("memory") == ["from a", "from b"]
    assert not a.add("memory", "from b").ok  # b's write is seen by a's duplicate check
    assert b.remove("memory", "from a").ok
    assert a.entries("memory") == ["from b"]


_ADDER = """
import sys
from pathlib import Path
from hermeslite.store.memory import MemoryStore
store = MemoryStore(Path(sys.argv[1]), memory_limit=100_000)
for i in range(25):
    r = store.add("memory", f"process {sys.argv[2]} entry {i}")
    assert r.ok, r.message
"""


def test_concurrent_processes_lose_no_edits(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", _ADDER, str(tmp_path), str(n)], env=env) for n in range(4)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    entries = MemoryStore(tmp_path).entries("memory")
    assert len(entries) == 100
    assert len(set(entries)) == 100


def test_snapshot_format(tmp_path: Path):
    store = MemoryStore(tmp_path, memory_limit=200, user_limit=100)
    assert store.snapshot() == ""
    store.add("memory", "a" * 47)
    store.add("memory", "b" * 50)  # 47 + 3 + 50 = 100 -> 50%
    store.add("user", "Likes tea")
    snap = store.snapshot()
    assert snap.startswith("MEMORY (your notes) [50% — 100/200 chars]\n")
    assert "a" * 47 + "\n§\n" + "b" * 50 in snap
    assert "USER PROFILE (about the user) [9% — 9/100 chars]\nLikes tea" in snap
    assert snap.index("MEMORY") < snap.index("USER PROFILE")


def test_snapshot_with_only_user_entries(store: MemoryStore):
    store.add("user", "Uses vim")
    snap = store.snapshot()
    assert snap.startswith("USER PROFILE (about the user) [")
    assert "MEMORY (your notes)" not in snap


def test_snapshot_reads_fresh_each_call(store: MemoryStore):
    store.add("memory", "one")
    first = store.snapshot()
    store.add("memory", "two")
    assert store.snapshot() != first and "two" in store.snapshot()


def test_hand_edited_file_is_parsed_leniently(store: MemoryStore):
    store.folder.mkdir(parents=True)
    (store.folder / "MEMORY.md").write_text("§\nfirst\r\n§\n\n§\nsecond\n§\n", encoding="utf-8")
    assert store.entries("memory") == ["first", "second"]
    assert parse_entries("") == []


def test_from_config(tmp_path: Path):
    cfg = MemoryConfig(dir=str(tmp_path / "m"), memory_char_limit=500, user_char_limit=300)
    store = MemoryStore.from_config(cfg)
    assert store.folder == tmp_path / "m" and store.limits == {"memory": 500, "user": 300}


def test_from_config_defaults_to_data_dir(home: Path):
    assert MemoryStore.from_config(MemoryConfig()).folder == home / "data"


NOT_UTF8 = b"Uses uv\n\xa7\ncaf\xe9 au lait\n"  # a Latin-1 editor's save: § and é as single bytes


@pytest.mark.parametrize(
    "spoil, why",
    [
        (lambda path: path.write_bytes(NOT_UTF8), "not UTF-8 text (byte 0xa7 at offset 8)"),
        (lambda path: path.mkdir(), "a directory, not a file"),
    ],
    ids=["latin-1", "directory"],
)
def test_an_unreadable_file_is_one_line_naming_it_and_is_never_rewritten(store: MemoryStore, spoil, why):
    path = store.folder / "MEMORY.md"
    store.folder.mkdir()
    spoil(path)
    before = path.read_bytes() if path.is_file() else None
    expected = f"cannot read the memory file {path}: {why}; it is left as it is: fix it or move it aside"
    edits = [
        lambda: store.entries("memory"),
        lambda: store.usage("memory"),
        lambda: store.snapshot(),
        lambda: store.add("memory", "new fact"),
        lambda: store.replace("memory", "uv", "Uses uv 0.5"),
        lambda: store.remove("memory", "uv"),
    ]
    for edit in edits:
        with pytest.raises(MemoryUnreadable) as caught:
            edit()
        assert str(caught.value) == expected
    assert (path.read_bytes() if path.is_file() else None) == before
    assert path.exists() and sorted(p.name for p in store.folder.iterdir()) == [LOCK_NAME, "MEMORY.md"]
    assert store.add("user", "Prefers tabs").ok  # the other file is unaffected
