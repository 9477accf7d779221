"""Running one hook command: input on stdin, bounded output, and nothing of it left behind."""

from __future__ import annotations

import os
from pathlib import Path

from hermeslite.tools.hooks.process import run_hook
from tests.hook_scripts import live_in_group


async def run(body: str, data: bytes = b"", *, cwd: Path, timeout: float = 30):
    return await run_hook(["bash", "-c", body], data, cwd=cwd, env=dict(os.environ), timeout=timeout)


async def test_it_reads_the_input_and_reports_output_and_exit_code(tmp_path: Path) -> None:
    done = await run('read -r line; echo "got $line"; echo "to stderr" >&2; exit 3', b'{"a": 1}\n', cwd=tmp_path)
    assert (done.exit_code, done.stdout, done.stderr, done.failure) == (3, 'got {"a": 1}\n', "to stderr\n", None)


async def test_a_hook_that_never_reads_a_large_input_is_not_waited_for(tmp_path: Path) -> None:
    done = await run("exit 0", b"x" * 2_000_000, cwd=tmp_path)
    assert done.exit_code == 0 and done.failure is None


async def test_a_child_left_holding_the_output_is_killed_and_the_reply_stands(tmp_path: Path) -> None:
    done = await run(f'echo $$ > "{tmp_path}/pgid"; sleep 300 & echo "{{}}"', cwd=tmp_path)
    assert done.exit_code == 0 and done.stdout == "{}\n"
    assert live_in_group(int((tmp_path / "pgid").read_text())) == []


async def test_death_by_a_signal_reads_as_the_shell_says_it(tmp_path: Path) -> None:
    assert (await run("kill -TERM $$", cwd=tmp_path)).exit_code == 128 + 15


async def test_a_hook_that_cannot_start_says_why(tmp_path: Path) -> None:
    done = await run("true", cwd=tmp_path / "gone")
    assert done.exit_code is None and done.failure is not None and done.failure.startswith("could not start")
