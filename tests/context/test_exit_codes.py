"""Exit codes as data: the key on the message wins, and old sessions are read from their text."""

from __future__ import annotations

from hermeslite.context.anchors import extract_anchors
from hermeslite.context.exit_codes import exit_code_of, exit_line, without_exit_line
from hermeslite.context.messages import ARCHIVE_KEY, EXIT_CODE_KEY, strip_private
from hermeslite.context.prune import prune
from tests.builders import Transcript


def test_the_recorded_code_wins_over_what_the_text_says():
    assert exit_code_of({"role": "tool", "content": "[exit code: 0]", EXIT_CODE_KEY: 2}) == 2
    assert exit_code_of({"role": "tool", "content": "done\n[exit code: 7]", EXIT_CODE_KEY: None}) is None, (
        "the key says the tool ran no command, whatever its text looks like"
    )
    assert strip_private([{"role": "tool", "content": "x", EXIT_CODE_KEY: 1}]) == [{"role": "tool", "content": "x"}]


def test_a_message_saved_without_the_key_is_read_from_hermeslite_s_own_wording():
    assert exit_code_of({"role": "tool", "content": "boom\n[exit code: 3]\n"}) == 3
    assert exit_code_of({"role": "tool", "content": "x" * 5000 + "\n[exit code: -1]"}) == -1
    pruned = {
        "role": "tool",
        ARCHIVE_KEY: "r0123456789",
        "content": "[terminal] ran `make` -> exit 2, 40 lines output [pruned; recall id r0123456789]",
    }
    assert exit_code_of(pruned) == 2
    assert exit_code_of({"role": "tool", "content": "import sys\nsys.exit(1)\n"}) is None, "a file that mentions exit"
    assert exit_code_of({"role": "tool", "content": "[exit code: 4]\nmore output after it"}) is None


def test_the_line_for_the_model_and_the_output_without_it():
    assert exit_line(5) == "[exit code: 5]"
    assert without_exit_line("a\nb\n[exit code: 5]", 5) == "a\nb"
    assert without_exit_line("a\nb\n[exit code: 5]", None) == "a\nb\n[exit code: 5]"
    assert without_exit_line("no line here", 0) == "no line here"


def _with_codes(messages, codes):
    """The transcript as the agent writes it now: every tool message carries its code."""
    it = iter(codes)
    return [{**m, EXIT_CODE_KEY: next(it)} if m.get("role") == "tool" else m for m in messages]


def test_anchors_and_pruned_lines_take_the_recorded_code():
    t = Transcript().user("build it")
    t.tool("terminal", {"command": "make"}, "compiling\n" * 30 + "[exit code: 1]")  # text and key disagree
    t.tool("terminal", {"command": "make test"}, "ok\n" * 100 + "[exit code: 0]")
    t.assistant("done")
    messages = _with_codes(t.build(), [5, 0])
    assert extract_anchors(messages).commands == [["make test", 0], ["make", 5]]
    result = prune(messages, protect_tokens=0, minimum_tokens=0)
    line = result.messages[3]["content"]
    assert line.startswith("[terminal] ran `make` -> exit 5, 31 lines output"), line
    assert exit_code_of(result.messages[3]) == 5, "the placeholder keeps the recorded code"
