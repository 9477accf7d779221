"""@file mentions from the command line: `-p` and the piped line chat attach the file the prompt names
(the scripted server receives its content), and say in one line what was left out. Real processes,
real HTTP."""

from __future__ import annotations

from pathlib import Path

from tests.cli_process import hermeslite, model_args

CACHE = "def get(key):\n    return STORE[key]\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "cache.py").write_text(CACHE, encoding="utf-8")
    (root / ".env").write_text("API_KEY=sk-live-0123456789\n", encoding="utf-8")
    return root


def user_texts(server, request: int = -1) -> list[str]:
    return [m["content"] for m in server.requests[request]["messages"] if m["role"] == "user"]


def test_p_attaches_a_mentioned_file_and_names_what_it_left_out(scripted_server, tmp_path):
    root = project(tmp_path)
    done = hermeslite(["-p", "explain @src/cache.py and @.env", *model_args(scripted_server)], tmp_path / "home", root)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"
    [sent] = user_texts(scripted_server)
    assert sent.startswith('explain @src/cache.py and @.env\n\n<attached_file path="src/cache.py" lines="2">\n')
    assert CACHE in sent and "sk-live" not in sent
    assert "attached: src/cache.py (2 lines) · not attached: @.env: may hold credentials" in done.stderr


def test_the_line_chat_attaches_mentions_on_send(scripted_server, tmp_path):
    root = project(tmp_path)
    done = hermeslite(
        [*model_args(scripted_server)], tmp_path / "home", root, input="look at @src/cache.py\n@missing.py\n/quit\n"
    )
    assert done.returncode == 0, done.stderr
    first, second = user_texts(scripted_server, 0), user_texts(scripted_server, 1)
    assert first[0].startswith("look at @src/cache.py\n\n") and CACHE in first[0]
    assert second[-1] == "@missing.py"
    assert "not attached: @missing.py: no such file" in done.stdout + done.stderr
