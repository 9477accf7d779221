"""What file checkpoints cost: a snapshot, a turn, a rewind, for projects of 100 to 10,000 files.

What is measured, on real files in a temporary project (folders of 100 files of
~1 KB) with the store in a temporary HERMESLITE_HOME:
- first: the first snapshot of a project nobody snapshotted before (every file hashed once);
- a snapshot when nothing changed (one `git status` walk; what a turn pays per snapshot);
- a turn when nothing changed: the snapshot before its first writing tool and the one after
  it (a turn that runs, say, `ls` through the terminal tool);
- a snapshot after a 1 MB file changed (a new 1 MB file each run: hashed, compressed, committed);
- a rewind: preview (plan) and restore of that 1 MB change, back to the snapshot before it.
Each figure is the median wall time of RUNS runs, with the median CPU time (this process and the
git processes it ran) beside it: on a shared machine wall time follows the load average (printed),
CPU time much less.

Target: under 50 ms per turn at 10,000 files when nothing changed.

Run: python benchmarks/checkpoint_bench.py
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SIZES = (100, 1_000, 10_000)
RUNS = 15
TARGET_MS = 50.0
MB = 1 << 20


def make_project(root: Path, files: int) -> None:
    for n in range(files):
        folder = root / f"pkg{n // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n % 100:03d}.py").write_text(f"# module {n}\n" + "value = 'x' * 40\n" * 60)


def cpu_s() -> float:
    """CPU seconds used so far by this process and the child processes it waited for (git)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(runs: int, step: Callable[[], object], before: Callable[[], object] = lambda: None) -> tuple[float, float]:
    """(median wall ms, median CPU ms) of `step`, with `before` run (untimed) ahead of each."""
    walls, cpus = [], []
    for _ in range(runs):
        before()
        cpu, started = cpu_s(), time.perf_counter()
        step()
        walls.append((time.perf_counter() - started) * 1000)
        cpus.append((cpu_s() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def fmt(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.1f} ({pair[1]:.1f})"


def measure(files: int, scratch: Path) -> tuple[list[str], tuple[float, float]]:
    from hermeslite.store.checkpoints import open_repo
    from hermeslite.store.shadow_repo import Limits
    from hermeslite.store.shadow_restore import apply_restore, plan_restore

    project = scratch / f"project-{files}"
    make_project(project, files)
    repo = open_repo(project, Limits())
    started = time.perf_counter()
    repo.snapshot("bench")
    first = (time.perf_counter() - started) * 1000
    repo.snapshot("bench")  # git has settled its racy entries

    unchanged = timed(RUNS, lambda: repo.snapshot("bench"))
    turn = timed(RUNS, lambda: (repo.snapshot("bench"), repo.snapshot("bench")))

    big = project / "blob.bin"
    changed = timed(RUNS, lambda: repo.snapshot("bench"), lambda: big.write_bytes(os.urandom(MB)))

    targets: list[str] = []

    def change() -> None:
        targets.append(repo.snapshot("bench").commit)
        big.write_bytes(os.urandom(MB))
        repo.snapshot("bench")

    rewind = timed(RUNS, lambda: apply_restore(repo, "bench", plan_restore(repo, "bench", targets[-1])), change)
    return [
        f"| {files:,} | {first:,.0f} | {fmt(unchanged)} | {fmt(turn)} | {fmt(changed)} | {fmt(rewind)} |",
    ], turn


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="hermeslite-checkpoint-bench-"))
    os.environ["HERMESLITE_HOME"] = str(scratch / "home")
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent
        ).stdout.strip()
        git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
        print(f"commit {commit or '?'} · {git} · load average {os.getloadavg()[0]:.2f} · {RUNS} runs each")
        print("ms: median wall time (median CPU time)\n")
        print(
            "| files | first snapshot | snapshot, nothing changed | turn, nothing changed | snapshot, 1 MB changed | rewind of the 1 MB change |"
        )
        print("|---:|---:|---:|---:|---:|---:|")
        verdict = 0
        for files in SIZES:
            rows, turn = measure(files, scratch)
            print(*rows, sep="\n", flush=True)
            if files == SIZES[-1]:
                verdict = 0 if turn[0] < TARGET_MS else 1
                print(
                    f"\nturn at {files:,} files, nothing changed: {turn[0]:.1f} ms wall, {turn[1]:.1f} ms CPU "
                    f"(target {TARGET_MS:g} ms): {'ok' if verdict == 0 else 'over target (see the load average)'}"
                )
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return verdict
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
