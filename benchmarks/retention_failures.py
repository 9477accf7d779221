"""The failures rows of `retention.py`'s drift table: an open failure outlives ten compactions, a fixed one goes.

Issue 19's session: it opens with a standing instruction, a failing
`pytest -q tests/test_retry.py` with its error line (never fixed), and a
failing `pytest tests/http/test_pool.py` (fixed in the first round by
`pytest -q tests/http/test_pool.py`, spelled differently, as people rerun
tests). Then ten rounds of twenty ordinary requests, each reading a file;
three requests a round run another test that fails and pass when rerun with
other flags, as work goes. Each round ends in a forced compaction at a 32k
window. Checked after compactions 1, 2, 5 and 10, in what the model sees:
the open failure and its error line are there, and the fixed failure and
its error line are not.
"""

from __future__ import annotations

from collections.abc import Callable

from retention_drift import CHECKPOINTS, REQUESTS, ROUNDS, Calls, Summarize, drift

REQUESTS_PER_ROUND = 20
INSTRUCTION = "From now on always run the tests with -q and never edit vendor/."
OPEN = "pytest -q tests/test_retry.py"
OPEN_ERROR = "E   AssertionError: expected 3 retries after a 503, got 5"
FIXED = "pytest tests/http/test_pool.py"
FIXED_RERUN = "pytest -q tests/http/test_pool.py"
FIXED_ERROR = "E   AssertionError: pool size 0 != 4"
FLAKY_PER_ROUND = 3  # tests that fail and then pass when rerun, each round


def _failed_line(text: str, command: str) -> bool:
    return any(f"`{command}`" in line and "exit 1" in line for line in text.splitlines())


NEEDLES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("open failure + exit 1", lambda t: _failed_line(t, OPEN)),
    ("its error line", lambda t: OPEN_ERROR in t),
    ("fixed failure gone", lambda t: not _failed_line(t, FIXED) and FIXED_ERROR not in t),
)


def _failing(name: str, error: str) -> str:
    return f"{name} FAILED\n{error}\n1 failed, 6 passed in 0.21s\n[exit code: 1]"


def opening(calls: Calls) -> list[dict]:
    return [
        {"role": "system", "content": "You are a coding agent working in the acme-http repository."},
        {"role": "user", "content": INSTRUCTION},
        {"role": "assistant", "content": "Understood."},
        {"role": "user", "content": "Run the retry and pool tests and tell me what fails."},
        *calls.tool("terminal", {"command": OPEN}, _failing("tests/test_retry.py::test_503", OPEN_ERROR)),
        *calls.tool("terminal", {"command": FIXED}, _failing("tests/http/test_pool.py::test_size", FIXED_ERROR)),
        {"role": "assistant", "content": "Both fail: the retry count after a 503, and the pool size."},
    ]


def work_round(messages: list[dict], calls: Calls, round_no: int) -> list[dict]:
    out = list(messages)
    for n in range(REQUESTS_PER_ROUND):
        path = f"src/http/{('client', 'pool', 'session', 'errors', 'auth')[n % 5]}_{round_no:02d}_{n:02d}.py"
        code = "def handler(request, timeout=5.0):\n    return pool.send(request, timeout=timeout)\n" * 25
        out.append({"role": "user", "content": REQUESTS[n % len(REQUESTS)].format(path=path)})
        out += calls.tool("read_file", {"path": path}, code)
        if n < FLAKY_PER_ROUND:
            test = f"tests/unit/test_r{round_no:02d}_{n}.py"
            error = f"E   AssertionError: round {round_no} case {n} timed out"
            out += calls.tool("terminal", {"command": f"pytest {test} -x"}, _failing(f"{test}::test_case", error))
            out += calls.tool("terminal", {"command": f"pytest -q {test}"}, "7 passed in 0.20s\n[exit code: 0]")
        if round_no == 1 and n == REQUESTS_PER_ROUND // 2:
            out += calls.tool("terminal", {"command": FIXED_RERUN}, "7 passed in 0.19s\n[exit code: 0]")
        out.append({"role": "assistant", "content": f"I read {path}: the handling there looks right to me."})
    return out


async def failure_table(summarizers: tuple[tuple[str, Summarize], ...], context_length: int) -> float:
    """Print the failure rows after 1, 2, 5 and 10 compactions per summarizer; return the worst share held at 10."""
    session = (opening, work_round, NEEDLES)
    results = {name: await drift(fn, context_length, session) for name, fn in summarizers}
    print(
        f"\nFailures: {ROUNDS} rounds of {REQUESTS_PER_ROUND} requests, {FLAKY_PER_ROUND} tests a round failing then "
        f"passing when rerun with other flags; an open failure from the start, a failure fixed in round 1; "
        f"context_length={context_length:,}"
    )
    width = max(len(name) for name, _ in NEEDLES) + 2
    columns = [f"{name}@{k}" for name, _ in summarizers for k in CHECKPOINTS]
    print(f"\n{'needle':<{width}}" + "".join(f"{c:>11}" for c in columns))
    print("-" * (width + 11 * len(columns)))
    for i, (needle, _) in enumerate(NEEDLES):
        cells = ["yes" if results[c.split("@")[0]][int(c.split("@")[1])][i] else "NO" for c in columns]
        print(f"{needle:<{width}}" + "".join(f"{cell:>11}" for cell in cells))
    return min(100.0 * sum(results[name][ROUNDS]) / len(NEEDLES) for name, _ in summarizers)
