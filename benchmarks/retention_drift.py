"""The drift table of `retention.py`: do facts stated once survive ten compactions in a row?

A session opens the way issue 11 describes: a standing instruction ("From now
on always use tabs for indentation and never touch vendor/."), a write_file of
src/http/retry_policy.py, and a failing pytest with its error line. Then ten
rounds follow, each of twenty ordinary requests of about 200 characters, each
request reading another file and getting a short answer, and each round ends
in a forced compaction (the middle is always summarized, never only pruned).
Survival of each fact is checked after compactions 1, 2, 5 and 10, per
summarizer, in the text the model would see.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tests.builders import pinned_compressor, tool_exchange, visible_text

Summarize = Callable[[str, "str | None"], Awaitable[str]]

ROUNDS = 10
REQUESTS_PER_ROUND = 20
CHECKPOINTS = (1, 2, 5, 10)
CONSTRAINT = "From now on always use tabs for indentation and never touch vendor/."
WRITTEN = "src/http/retry_policy.py"
FAILING = "pytest tests/http/test_retry_policy.py -q"
ERROR = "E   AssertionError: expected 3 retries after a 503, got 5"

NEEDLES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("constraint (tabs, vendor/)", lambda t: CONSTRAINT in t),
    ("written retry_policy.py", lambda t: WRITTEN in t),
    ("failing pytest + exit 1", lambda t: any(FAILING in ln and "exit 1" in ln for ln in t.splitlines())),
    ("its error line", lambda t: ERROR in t),
)

# Ordinary requests, ~200 characters each; some use words like "instead" or "must" in passing,
# as real requests do, without being standing instructions.
REQUESTS = (
    "Can you open {path} and check whether the timeout handling matches the retry policy we wrote? If "
    "something looks off, explain what you would change and why, but keep it short.",
    "Please read {path} and tell me where the connection pool gets created; I want to know whether it is "
    "shared between requests or rebuilt every time, since that would explain the slow start.",
    "Look at {path}: does it log the attempt number when a request is retried? If not, suggest where one "
    "log line would fit best without making the function any harder to read.",
    "Open {path} and see whether it still imports the old settings module instead of the new one; we "
    "renamed it last week and nothing must point at the old name before I delete the shim.",
    "Have a look at {path} and tell me if the error messages there say which URL failed. The on-call "
    "people complained they could not tell which upstream was down from the logs alone.",
)


class Calls:
    """Message builders with call ids unique over the whole session."""

    def __init__(self) -> None:
        self.n = 0

    def tool(self, name: str, args: dict, output: str) -> list[dict]:
        self.n += 1
        return tool_exchange([f"call_drift_{self.n:05d}"], [(name, args, output)])


def opening(calls: Calls) -> list[dict]:
    policy = "class RetryPolicy:\n\tmax_retries = 3\n\tbackoff = 0.5\n" * 12
    output = (
        f"tests/http/test_retry_policy.py::test_retries_after_503 FAILED\n{ERROR}\n"
        "1 failed, 6 passed in 0.21s\n[exit code: 1]"
    )
    return [
        {"role": "system", "content": "You are a coding agent working in the acme-http repository."},
        {"role": "user", "content": CONSTRAINT},
        {"role": "assistant", "content": "Understood: tabs for indentation, and vendor/ stays untouched."},
        {
            "role": "user",
            "content": "Write a retry policy with exponential backoff for the HTTP client, then run its tests.",
        },
        *calls.tool("write_file", {"path": WRITTEN, "content": policy}, f"Wrote {len(policy)} bytes to {WRITTEN}"),
        *calls.tool("terminal", {"command": FAILING}, output),
        {
            "role": "assistant",
            "content": "The policy is written, but one test fails: it retries five times after a 503.",
        },
    ]


def work_round(messages: list[dict], calls: Calls, round_no: int) -> list[dict]:
    out = list(messages)
    for n in range(REQUESTS_PER_ROUND):
        path = f"src/http/{('client', 'pool', 'session', 'errors', 'auth')[n % 5]}_{round_no:02d}_{n:02d}.py"
        code = "def handler(request, timeout=5.0):\n    return pool.send(request, timeout=timeout)\n" * 25
        out.append({"role": "user", "content": REQUESTS[n % len(REQUESTS)].format(path=path)})
        out += calls.tool("read_file", {"path": path}, code)
        out.append({"role": "assistant", "content": f"I read {path}: the handling there looks right to me."})
    return out


Opening = Callable[[Calls], list[dict]]
Round = Callable[[list[dict], Calls, int], list[dict]]
Needles = tuple[tuple[str, Callable[[str], bool]], ...]


async def drift(
    summarize: Summarize, context_length: int, session: tuple[Opening, Round, Needles] | None = None
) -> dict[int, list[bool]]:
    """Survival of each needle after each checkpoint compaction; `session` (its opening, a round of
    work, the needles) defaults to this module's."""
    start, work, needles = session or (opening, work_round, NEEDLES)
    c = pinned_compressor(summarize, context_length)
    calls = Calls()
    messages = start(calls)
    survived: dict[int, list[bool]] = {}
    for round_no in range(1, ROUNDS + 1):
        messages = work(messages, calls, round_no)
        messages = (await c.compress(messages, force=True)).messages
        if round_no in CHECKPOINTS:
            text = visible_text(messages)
            survived[round_no] = [check(text) for _, check in needles]
    return survived


async def drift_table(summarizers: tuple[tuple[str, Summarize], ...], context_length: int) -> float:
    """Print survival per needle after 1, 2, 5 and 10 compactions for each summarizer; return the worst
    survival percentage after the tenth."""
    results = {name: await drift(fn, context_length) for name, fn in summarizers}
    width = max(len(name) for name, _ in NEEDLES) + 2
    columns = [f"{name}@{k}" for name, _ in summarizers for k in CHECKPOINTS]
    print(
        f"\nDrift: {ROUNDS} rounds of {REQUESTS_PER_ROUND} ~200-char requests (each reading another file), "
        f"a forced compaction after each round; context_length={context_length:,}"
    )
    print("columns: summarizer@compactions so far; yes = exact text still visible to the model")
    for start in range(0, len(columns), len(CHECKPOINTS) * 3):
        chunk = columns[start : start + len(CHECKPOINTS) * 3]
        print(f"\n{'needle':<{width}}" + "".join(f"{c:>11}" for c in chunk))
        print("-" * (width + 11 * len(chunk)))
        for i, (needle, _) in enumerate(NEEDLES):
            cells = []
            for column in chunk:
                name, k = column.split("@")
                cells.append("yes" if results[name][int(k)][i] else "NO")
            print(f"{needle:<{width}}" + "".join(f"{cell:>11}" for cell in cells))
    print(f"\n{'survival after n compactions':<30}" + "".join(f"{'n=' + str(k):>8}" for k in CHECKPOINTS))
    worst_at_10 = 100.0
    for name, _ in summarizers:
        pcts = [100.0 * sum(results[name][k]) / len(NEEDLES) for k in CHECKPOINTS]
        worst_at_10 = min(worst_at_10, pcts[-1])
        print(f"  {name:<28}" + "".join(f"{p:>7.0f}%" for p in pcts))
    return worst_at_10
