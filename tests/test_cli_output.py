"""What `hermeslite` writes to a terminal or a pipe: real processes, real pipes, the scripted server."""

from __future__ import annotations

from tests.server import Reply
from tests.test_cli_chat import hermeslite, model_args, sessions_db
from tests.test_display import is_control

# A reply that, printed raw, would set the window title, put a command on the
# clipboard, clear the screen, ask the terminal for its cursor position (the
# answer lands on our input) and switch colour through the 8-bit CSI.
HOSTILE_REPLY = ("title\x1b]0;pwned\x07 clipboard\x1b]52;c;cm0gLXJmIH4=\x07 clear\x1b[2J\x1b[H "
                 "query\x1b[6n c1\x9b31m end")
# A command whose text and output carry the same kind of sequences, and a file that does.
HOSTILE_COMMAND = "printf '\x1b]0;from-tool\x07 \x1b]52;c;aGk=\x07 \x1b[6n done\\n'"
HOSTILE_FILE = "notes\n\x1b]0;from-file\x07 \x1b]52;c;aGk=\x07 \x1b[6n done\n"


def test_escape_sequences_are_shown_not_obeyed_and_the_transcript_keeps_them(scripted_server, tmp_path):
    home = tmp_path / "home"
    (tmp_path / "notes.txt").write_text(HOSTILE_FILE, encoding="utf-8")
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": HOSTILE_COMMAND}),
                                              ("read_file", {"path": "notes.txt"})]),
                            Reply.text(HOSTILE_REPLY, chunks=5))
    done = hermeslite(["-p", "show me", *model_args(scripted_server)], home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert not [c for c in done.stdout + done.stderr if is_control(c)]
    assert done.stdout == ("title␛]0;pwned␇ clipboard␛]52;c;cm0gLXJmIH4=␇ clear␛[2J␛[H "
                           "query␛[6n c1\\x9b31m end\n")
    assert "» terminal: printf '␛]0;from-tool␇ ␛]52;c;aGk=␇ ␛[6n done\\n'" in done.stderr
    assert "␛]0;from-file␇ ␛]52;c;aGk=␇ ␛[6n done" in done.stderr   # the read_file preview
    store = sessions_db(home)
    transcript = store.load_transcript(store.latest_session_id())
    assert transcript[-1] == {"role": "assistant", "content": HOSTILE_REPLY}
    command_output, file_output = (m["content"] for m in transcript if m["role"] == "tool")
    assert "\x1b]0;from-tool\x07 \x1b]52;c;aGk=\x07 \x1b[6n done" in command_output
    assert "\x1b]0;from-file\x07 \x1b]52;c;aGk=\x07 \x1b[6n done" in file_output
