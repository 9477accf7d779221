"""Edit diffs as a `-p` user and a line-chat user see them: compact lines on stderr under the tool's
line; with `tools.edits: ask` and nobody to ask, the edit is refused with the hint, and nothing written."""

from __future__ import annotations

from tests.cli_process import hermeslite, model_args
from tests.envelope import sent_tool_results
from tests.server import Reply

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 41))


def _project(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text(ORIGINAL)
    return project


def test_p_prints_a_compact_diff_of_each_edit_on_stderr(scripted_server, tmp_path):
    project = _project(tmp_path)
    scripted_server.enqueue(
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "line 20\n", "new": "line twenty\n"})]),
        Reply.tool_calls([("write_file", {"path": "big.txt", "content": "".join(f"{n}\n" for n in range(50))})]),
        Reply.text("done"),
    )
    done = hermeslite(["-p", "edit", *model_args(scripted_server)], tmp_path / "home", project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"  # diffs never reach stdout
    lines = done.stderr.splitlines()
    at = lines.index("  ✓ patched notes.txt: replaced 1 occurrence(s)")
    assert lines[at + 1 : at + 5] == [
        "    notes.txt: +1 −1",
        "    @@ -17,7 +17,7 @@",
        "    -line 20",
        "    +line twenty",
    ]
    at = lines.index("    big.txt: new file, +50 −0")
    assert lines[at + 2 : at + 4] == ["    +0", "    +1"]
    assert lines[at + 21] == "    … 31 more diff lines"  # 20 change lines at most, then a count
    assert (project / "notes.txt").read_text() == ORIGINAL.replace("line 20\n", "line twenty\n")


def test_p_with_edits_ask_refuses_the_edit_shows_it_and_says_how_to_permit_it(scripted_server, tmp_path):
    project = _project(tmp_path)
    config = tmp_path / "config.yaml"
    config.write_text("tools:\n  edits: ask\n")
    scripted_server.enqueue(
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "line 3\n", "new": "line three\n"})]),
        Reply.tool_calls([("write_file", {"path": "new.txt", "content": "fresh\n"})]),
        Reply.text("could not edit"),
    )
    done = hermeslite(["-p", "edit", "--config", str(config), *model_args(scripted_server)], tmp_path / "home", project)
    assert done.returncode == 0, done.stderr
    assert (project / "notes.txt").read_text() == ORIGINAL and not (project / "new.txt").exists()
    assert "    notes.txt: +1 −1 (not written)" in done.stderr and "    -line 3" in done.stderr
    assert "    new.txt: new file, +1 −0 (not written)" in done.stderr
    results = sent_tool_results(scripted_server)
    assert len(results) == 2
    for result in results:
        assert "no one can approve this edit in headless mode" in result
        assert "set tools.edits: auto" in result


def test_the_piped_line_chat_prints_the_diff_too(scripted_server, tmp_path):
    project = _project(tmp_path)
    scripted_server.enqueue(
        Reply.tool_calls([("patch", {"path": "notes.txt", "old": "line 9\n", "new": "line nine\n"})]),
        Reply.text("patched"),
    )
    done = hermeslite(model_args(scripted_server), tmp_path / "home", project, input="patch line 9\n")
    assert done.returncode == 0, done.stderr
    assert "    notes.txt: +1 −1" in done.stderr and "    +line nine" in done.stderr
