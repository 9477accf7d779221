"""`hermeslite -p` with an obedient model that aims commands at the user's home: nothing outside changes."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

from hermeslite.tools.sandbox import assess
from tests.server import Reply, ScriptedServer

PAYLOAD = base64.b64encode(b"rm -rf ~/x").decode()
COMMANDS = [
    "rm -rf ~/x",
    "cd ~ && rm -rf x",
    "python3 -c \"import os, shutil; shutil.rmtree(os.path.expanduser('~/x'))\"",
    f"echo {PAYLOAD} | base64 -d | sh",
    ": > ~/notes.txt",
]


def run_headless(server: ScriptedServer, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    (home / "x").mkdir(parents=True)
    (home / "proj").mkdir()
    tmp.mkdir()
    (home / "x" / "keep.txt").write_text("precious\n")
    (home / "notes.txt").write_text("my notes\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "HERMESLITE_CONFIG"}
    env.update(HOME=str(home), TMPDIR=str(tmp), HERMESLITE_HOME=str(tmp_path / "hl"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hermeslite",
            "-p",
            "clean up",
            "--model",
            "openai/test-model",
            "--api-base",
            server.base_url,
            *extra,
        ],
        cwd=home / "proj",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, home


def test_headless_commands_aimed_at_the_home_change_nothing(scripted_server, tmp_path):
    scripted_server.enqueue(
        *[Reply.tool_calls([("terminal", {"command": c})]) for c in COMMANDS], Reply.text("could not do it")
    )
    done, home = run_headless(scripted_server, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (home / "x" / "keep.txt").read_text() == "precious\n"
    assert (home / "notes.txt").read_text() == "my notes\n"
    results = [m["content"] for m in scripted_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(results) == len(COMMANDS)
    assert all("no one can approve" in r or "[sandbox:" in r for r in results), results
    assert "Traceback" not in done.stderr


def test_sandbox_off_is_said_once_on_stderr(scripted_server, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("tools:\n  sandbox: off\n")
    scripted_server.enqueue(Reply.text("hello"))
    done, _ = run_headless(scripted_server, tmp_path, "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("sandbox off (tools.sandbox: off)") == 1


def test_no_note_when_the_sandbox_is_on(scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("hello"))
    done, home = run_headless(scripted_server, tmp_path)
    expected = assess("auto", [], home / "proj").warning
    assert ("hermeslite: note: " in done.stderr) is (expected is not None)


def test_a_headless_denial_is_printed_whole_with_how_to_permit_it(scripted_server, tmp_path):
    """The line once stopped at 100 characters, in the middle of the reason, with no sign it was cut."""
    from tests.envelope import sent_tool_results

    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "curl -s https://example.com"})]), Reply.text("no")
    )
    done, _ = run_headless(scripted_server, tmp_path)
    assert done.returncode == 0, done.stderr
    (refusal,) = sent_tool_results(scripted_server)
    assert refusal.startswith("error: denied") and "to permit it, " in refusal
    assert f"  ✗ {refusal}\n" in done.stderr
