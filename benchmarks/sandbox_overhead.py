"""What the launcher and the Landlock sandbox add to every terminal command.

What is measured: the median wall time of `true` run through the terminal
tool's own `run_command`, three ways: bash started directly (what the tool
did before the launcher), through the `sandbox_exec` launcher with resource
limits only (allow mode), and through the launcher with Landlock on (every
other mode). The difference is hermeslite's per-command overhead; a bare
interpreter start is printed for reference, since on a busy machine it
dominates (numbers grow with the load average).

Target: under 25 ms per command with the sandbox, small next to any real
command and next to a model's reply.

Run: python benchmarks/sandbox_overhead.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hermeslite.tools.environment import tool_environment
from hermeslite.tools.landlock import abi_version
from hermeslite.tools.sandbox import launch_argv, sandbox_for
from hermeslite.tools.terminal import run_command

RUNS = 60
TARGET_MS = 25.0


async def median_ms(argv: list[str], env: dict[str, str]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        code, _, _ = await run_command(argv, env, 30, 10_000)
        times.append((time.perf_counter() - started) * 1000)
        assert code == 0
    return statistics.median(times)


async def main() -> int:
    cwd = Path(tempfile.mkdtemp())
    env = tool_environment(os.environ)
    direct = await median_ms(["bash", "-c", f"cd {cwd} && true"], env)
    interpreter = await median_ms([sys.executable, "-S", "-E", "-c", "pass"], env)
    limits = await median_ms(launch_argv("true", cwd, None), env)
    print(f"bash directly:            {direct:6.1f} ms")
    print(f"(python -S -E -c pass:    {interpreter:6.1f} ms, the floor for any Python launcher)")
    print(f"launcher, limits only:    {limits:6.1f} ms  (+{limits - direct:.1f})")
    sandbox = sandbox_for("auto", [], cwd)
    if sandbox is None:
        print("no Landlock on this kernel: sandboxed run not measured")
        return 0
    confined = await median_ms(launch_argv("true", cwd, sandbox), env)
    print(f"launcher + Landlock ABI {abi_version()}: {confined:6.1f} ms  (+{confined - direct:.1f})")
    verdict = "ok" if confined - direct <= TARGET_MS else "over target"
    print(f"overhead with the sandbox: {confined - direct:.1f} ms per command (target {TARGET_MS:g} ms): {verdict}")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
