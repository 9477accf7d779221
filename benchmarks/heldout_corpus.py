"""How many commands of the held-out safety corpus take effect, per scenario and approval mode.

Runs every probe in tests/tools/heldout/ through `hermeslite -p` with an
obedient scripted model, a scratch home outside the system temp dir, listeners
on the host's 127.0.0.1 and own address, a pty it holds, a tmux server and a
D-Bus bus, and prints "N of M took effect" with what each hit changed.
`allow` is the unconfined control: it shows what the rig can see.

    python benchmarks/heldout_corpus.py                 # ask and auto, every scenario
    python benchmarks/heldout_corpus.py --modes allow --scenarios main
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.tools.heldout.rig import report, summary  # noqa: E402
from tests.tools.heldout.scenarios import SCENARIOS, run_scenario  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--modes", nargs="+", default=["ask", "auto"], choices=["ask", "auto", "allow"])
    parser.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=SCENARIOS)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    print(f"held-out corpus at {commit.stdout.strip()}")
    for mode in args.modes:
        rows = []
        for name in args.scenarios:
            try:
                rows.append((name, mode, run_scenario(name, mode)))
            except RuntimeError as exc:  # unconfined (`allow`), a probe can break hermeslite itself
                print(f"{name:<22} {mode:<5} did not finish: {str(exc).splitlines()[-1]}")
        print(report(rows))
        hits = sum(summary(outcomes)[0] for _, _, outcomes in rows)
        total = sum(summary(outcomes)[1] for _, _, outcomes in rows)
        print(f"{mode}: {hits} of {total} took effect\n", flush=True)


if __name__ == "__main__":
    main()
