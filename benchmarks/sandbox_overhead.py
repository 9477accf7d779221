"""What the launcher and the sandbox add to every terminal command.

What is measured: the median wall time of `true` run through the terminal
tool's own `run_command`, four ways: bash started directly (what the tool did
before the launcher), through the `sandbox_exec` launcher with resource limits
only (allow mode), with Landlock only (`tools.sandbox: landlock`), and with
Landlock in the sandbox's namespaces (`auto`: joining the kept user and
network namespaces, a fresh mount namespace with its read-only binds, private
/dev and covered sockets, the seccomp filter). The difference from bash is
hermeslite's per-command overhead; a bare `python -I -S` start is printed for
reference, since on a busy machine it dominates (numbers grow with the load
average). The namespace keeper starts once per session, before the first
command; a warm-up run keeps it out of the figures.

Target: under 25 ms per command with the full sandbox, small next to any real
command and next to a model's reply.

Run: python benchmarks/sandbox_overhead.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hermeslite.tools.environment import tool_environment
from hermeslite.tools.landlock import abi_version
from hermeslite.tools.protected import launcher_python
from hermeslite.tools.sandbox import prepare, sandbox_for
from hermeslite.tools.terminal import run_command

RUNS = 60
TARGET_MS = 25.0


async def median_ms(launch, env: dict[str, str]) -> float:
    argv, fds, added = launch
    await run_command(argv, {**env, **added}, 30, 10_000, fds=fds)  # warm-up: caches, the keeper
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        code, output, _ = await run_command(argv, {**env, **added}, 30, 10_000, fds=fds)
        times.append((time.perf_counter() - started) * 1000)
        assert code == 0, output
    return statistics.median(times)


def launch_of(command: str, cwd: Path, mode: str | None, env: dict[str, str]):
    sandbox = sandbox_for(mode, [], cwd) if mode else None
    if mode and sandbox is None:
        return None
    launch = prepare(command, cwd, sandbox, env)
    return launch.argv, launch.fds, launch.env


async def main() -> int:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    print(f"commit {commit.stdout.strip() or '?'}, load average {os.getloadavg()[0]:.2f}, {RUNS} runs each")
    cwd = Path(tempfile.mkdtemp())
    env = tool_environment(os.environ)
    direct = await median_ms((["bash", "-c", f"cd {cwd} && true"], (), {}), env)
    floor = await median_ms(([str(launcher_python()), "-I", "-S", "-c", "pass"], (), {}), env)
    rows = [("bash directly", direct), ("(python -I -S -c pass, the floor for any Python launcher)", floor)]
    for label, mode in (
        ("launcher, limits only (allow)", None),
        (f"launcher + Landlock ABI {abi_version()} (landlock)", "landlock"),
        ("launcher + Landlock + namespaces (auto)", "auto"),
    ):
        launch = launch_of("true", cwd, mode, env)
        if launch is None:
            print(f"{label}: not available here")
            continue
        rows.append((label, await median_ms(launch, env)))
    for label, ms in rows:
        extra = "" if label.startswith(("bash", "(")) else f"  (+{ms - direct:.1f})"
        print(f"{label:58} {ms:6.1f} ms{extra}")
    full = rows[-1][1] - direct
    verdict = "ok" if full <= TARGET_MS else "over target"
    print(f"overhead with the full sandbox: {full:.1f} ms per command (target {TARGET_MS:g} ms): {verdict}")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
