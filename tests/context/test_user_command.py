"""The `!command` line and the user message it becomes."""

from __future__ import annotations

from hermeslite.context.messages import strip_private
from hermeslite.context.user_command import INTRO, shell_command_in, user_command_message, user_command_of
from hermeslite.store.transcript import title_from


def test_a_bang_line_names_a_command_and_anything_else_does_not():
    assert shell_command_in("!pytest -q") == "pytest -q"
    assert shell_command_in("!  git diff --stat ") == "git diff --stat"
    assert [shell_command_in(t) for t in ("!", "!   ", "run !ls", "/compress", "")] == [None] * 5


def test_the_message_says_whose_command_it_was_and_round_trips():
    message = user_command_message("ls src", "a.py\nb.py\n[exit code: 0]", 0)
    assert message["role"] == "user" and message["content"].startswith(INTRO)
    assert "the assistant did not run it" in INTRO and "not a request" in INTRO
    assert message["content"].endswith("$ ls src\na.py\nb.py\n[exit code: 0]")
    assert user_command_of(message) == ("ls src", "a.py\nb.py\n[exit code: 0]")
    assert strip_private([message]) == [{"role": "user", "content": message["content"]}]
    assert user_command_of({"role": "user", "content": "$ ls src"}) is None
    assert title_from(message) == "!ls src"
