"""`hermeslite -p` prints a tool's output as it was; the request carries it in its envelope."""

from __future__ import annotations

from tests.cli_process import hermeslite, model_args
from tests.server import Reply


def test_headless_lines_show_the_plain_output(scripted_server, tmp_path):
    (tmp_path / "notes.txt").write_text("ship it on friday\n")
    scripted_server.enqueue(Reply.tool_calls([("read_file", {"path": "notes.txt"})]), Reply.text("Friday."))
    done = hermeslite(["-p", "when do we ship?", *model_args(scripted_server)], tmp_path / "home", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ship it on friday" in done.stderr and "tool_output" not in done.stderr + done.stdout
    [result] = [m for m in scripted_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert result["content"].startswith("<tool_output>\n") and result["content"].endswith("\n</tool_output>")
    assert "ship it on friday" in result["content"]
