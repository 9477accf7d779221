"""The recall tables of `retention.py`: can the model get back what only the archive still holds?

Recovery. Seven needles are planted in the middle of a long session, each a
detail no checkpoint keeps (the recorded facts keep paths, commands and exit
codes, not what a command printed or a file said):

- a value printed once by a tool:   `make release` -> "build id 7741-QUASAR"
- a config key read from a file:    deploy/cache.toml -> eviction_policy = "lfu-decay"
- a port in a command's output:     `docker compose ps` -> 0.0.0.0:55432->5432/tcp
- a version a command installed:    pip -> orjson-3.10.7
- a route in a search result:       search_files -> "/v2/orders/{id}/refund"
- a constant the agent wrote:       write_file arguments -> RETRY_BUDGET_MS = 4500
- a URL printed once:               https://pr-482.preview.acme.test

Each summarizer of `retention.py` compacts the session once (and the lossy
one three times in a row, new work in between, so the archive grows). The
needle must be gone from what the model sees; then one `recall` query built
from the needle's own words (what the model would remember: "release build
id", "eviction_policy", never the value itself) runs against the session
archive, exactly as the tool does. A needle is recovered when one of the top
3 results shows the value in its excerpt. Target: 100%.

Speed. `recall` queries (the needles' queries and 200 of one to three
everyday words) against one session whose archive holds 20,000 messages of
the same kind of agent work, in an on-disk database: p50 and p95 of the
store's search and of the whole tool call. Target: p95 under 50 ms.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from hermeslite.context.messages import reference_id
from hermeslite.store.sessions import SessionStore
from hermeslite.tools.base import ToolContext
from hermeslite.tools.recall import RecallTool
from tests.builders import pinned_compressor, visible_text

Summarize = Callable[[str, "str | None"], Awaitable[str]]

TOP = 3
ARCHIVE_MESSAGES = 20_000
RANDOM_QUERIES = 200
FILLER = 200  # messages of ordinary work around the needles

# (label, value the model needs, the query it would send)
NEEDLES: tuple[tuple[str, str, str], ...] = (
    ("value printed once (build id)", "7741-QUASAR", "release build id"),
    ("config key read from a file", 'eviction_policy = "lfu-decay"', "eviction_policy"),
    ("port in docker compose ps", "0.0.0.0:55432->5432/tcp", "orders-db postgres"),
    ("version pip installed", "orjson-3.10.7", "installed orjson"),
    ("route in a search result", "/v2/orders/{id}/refund", "refund ROUTE"),
    ("constant in write_file args", "RETRY_BUDGET_MS = 4500", "RETRY_BUDGET_MS"),
    ("URL printed once", "https://pr-482.preview.acme.test", "deploy preview"),
)


def plant(s: Any) -> None:
    """The needles, as one stretch of ordinary agent work (`s` is retention.py's Session)."""
    s.user("Cut a release build and tell me when it is done.")
    build = "\n".join(f"[{n:02d}/14] compiling module_{n}" for n in range(14))
    s.calls(
        [
            (
                "terminal",
                {"command": "make release"},
                f"{build}\nrelease artifact built: build id 7741-QUASAR\n[exit code: 0]",
            )
        ]
    )
    s.assistant("The release build finished.")
    s.filler(6)
    s.user("Before we touch the cache, check how it is configured.")
    s.calls(
        [
            (
                "read_file",
                {"path": "deploy/cache.toml"},
                '[cache]\nbackend = "redis"\neviction_policy = "lfu-decay"\nmax_entries = 250000\nttl_seconds = 900\n',
            )
        ]
    )
    s.assistant("The cache is redis-backed with a TTL of 15 minutes.")
    s.filler(6)
    s.user("Is the orders database up?")
    s.calls(
        [
            (
                "terminal",
                {"command": "docker compose ps"},
                "NAME        IMAGE         STATUS        PORTS\n"
                "orders-api  orders:dev    Up 3 minutes  0.0.0.0:8080->8080/tcp\n"
                "orders-db   postgres:16   Up 3 minutes  0.0.0.0:55432->5432/tcp\n[exit code: 0]",
            )
        ]
    )
    s.calls(
        [
            (
                "terminal",
                {"command": "pip install orjson"},
                "Collecting orjson\n  Downloading orjson-3.10.7-cp311-manylinux.whl (141 kB)\n"
                "Installing collected packages: orjson\nSuccessfully installed orjson-3.10.7\n[exit code: 0]",
            )
        ]
    )
    s.assistant("The database is up and orjson is installed.")
    s.filler(6)
    s.user("Where is the refund endpoint defined?")
    s.calls(
        [
            (
                "search_files",
                {"pattern": "refund"},
                "services/orders/api.py:88: ROUTE = '/v2/orders/{id}/refund'\n"
                "services/orders/tests/test_api.py:12: def test_refund_requires_auth():\n2 matches",
            )
        ]
    )
    constants = "RETRY_BUDGET_MS = 4500\nMAX_REFUND_ATTEMPTS = 3\n"
    s.calls(
        [
            (
                "write_file",
                {"path": "services/orders/limits.py", "content": constants},
                f"Wrote {len(constants)} bytes to services/orders/limits.py",
            )
        ],
        text="Adding the limits module.",
    )
    s.calls(
        [
            (
                "terminal",
                {"command": "make preview"},
                "building preview image... done\npushing... done\n"
                "deploy preview ready at https://pr-482.preview.acme.test\n[exit code: 0]",
            )
        ]
    )
    s.assistant("The preview is deployed.")


def build_session(session_cls: type, seed: int) -> list[dict]:
    s = session_cls(random.Random(seed))
    s.messages.append({"role": "system", "content": "You are a coding agent working in the acme-billing repository."})
    s.filler(FILLER)
    plant(s)
    s.filler(FILLER)
    s.user("Now run the full test suite and summarize what still fails.")
    return s.messages


def rank_of(store: SessionStore, session_id: str, value: str, query: str) -> int | None:
    """1-based rank of the first of the top results whose excerpt shows `value`, else None."""
    for n, hit in enumerate(store.search_archive(session_id, query, TOP), 1):
        if value in hit.excerpt:
            return n
    return None


async def recovery(
    summarize: Summarize,
    session: list[dict],
    context_length: int,
    passes: int,
    more: Callable[[list[dict], int], list[dict]],
    db: Path,
) -> list[str]:
    """One cell per needle: the rank it was found at, NO, or 'visible' when it was never compacted.

    The archive gets what every pass archived, as the agent's store does.
    """
    c = pinned_compressor(summarize, context_length)
    messages, archived = session, {}
    for n in range(passes):
        result = await c.compress(messages)
        archived.update(result.archived)
        messages = result.messages if n == passes - 1 else more(result.messages, n)
    seen = visible_text(messages)
    with SessionStore(db) as store:
        sid = store.create_session("bench", "/w")
        store.archive(sid, archived)
        cells = []
        for _, value, query in NEEDLES:
            if value in seen:
                cells.append("visible")
                continue
            rank = rank_of(store, sid, value, query)
            cells.append(f"top {rank}" if rank else "NO")
        return cells


async def recovery_table(
    summarizers: tuple[tuple[str, Summarize], ...],
    context_length: int,
    session_cls: type,
    more: Callable[[list[dict], int], list[dict]],
    seed: int,
) -> float:
    """Print the recovery table; return the worst recovery percentage over its columns."""
    session = build_session(session_cls, seed)
    columns = [name for name, _ in summarizers] + ["lossy x3"]
    lossy = dict(summarizers)["lossy"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cells = [
            await recovery(fn, session, context_length, 1, more, folder / f"{name}.db") for name, fn in summarizers
        ]
        cells.append(await recovery(lossy, session, context_length, 3, more, folder / "lossy-x3.db"))
    label_w = max(len(label) for label, _, _ in NEEDLES) + 2
    query_w = max(len(query) for _, _, query in NEEDLES) + 4
    col = max(10, *(len(c) + 2 for c in columns))
    print(
        f"\nRecovery by query: {len(session)} messages, the needles in the middle; one recall query per needle "
        f"(its own words, not the value); found = the value is in a top-{TOP} excerpt"
    )
    print(f"{'needle':<{label_w}}{'query':<{query_w}}" + "".join(f"{c:>{col}}" for c in columns))
    print("-" * (label_w + query_w + col * len(columns)))
    for i, (label, _, query) in enumerate(NEEDLES):
        print(
            f"{label:<{label_w}}{chr(34) + query + chr(34):<{query_w}}"
            + "".join(f"{column[i]:>{col}}" for column in cells)
        )
    pcts = [100.0 * sum(cell.startswith("top") for cell in column) / len(NEEDLES) for column in cells]
    print("-" * (label_w + query_w + col * len(columns)))
    print(f"{'recovered':<{label_w + query_w}}" + "".join(f"{p:>{col - 1}.0f}%" for p in pcts))
    if any(cell == "visible" for column in cells for cell in column):
        print("('visible': the needle was still in the compacted transcript, so it proves nothing here)")
    return min(pcts)


# -- speed --------------------------------------------------------------------------------------


def big_archive(session_cls: type, seed: int) -> list[dict]:
    s = session_cls(random.Random(seed))
    s.filler(ARCHIVE_MESSAGES - 60)
    plant(s)
    while len(s.messages) < ARCHIVE_MESSAGES:
        s.filler_turn()
    return s.messages[:ARCHIVE_MESSAGES]


def queries(words: list[str], seed: int) -> list[str]:
    rng = random.Random(seed)
    everyday = [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(RANDOM_QUERIES)]
    return [query for _, _, query in NEEDLES] + everyday


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def speed_table(session_cls: type, words: list[str], seed: int) -> float:
    """Print p50/p95 of recall queries on a 20,000-message archive; return the tool call's p95 in ms."""
    messages = big_archive(session_cls, seed)
    archived: dict[str, dict] = {}
    for n, msg in enumerate(messages):
        ref = reference_id(msg)
        archived[ref if ref not in archived else f"r{n:010x}"] = msg
    size = sum(len(json.dumps(m)) for m in messages)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sessions.db"
        with SessionStore(path) as store:
            sid = store.create_session("bench", "/w")
            started = time.perf_counter()
            store.archive(sid, archived)
            indexing = time.perf_counter() - started
        db_mb = path.stat().st_size / 1e6  # closed: the WAL is checkpointed into the file
        with SessionStore(path) as store:  # queried as a resumed session would be
            tool = RecallTool(store, lambda: sid)
            ctx = ToolContext(cwd=Path(tmp))
            timings: dict[str, list[float]] = {"search wall": [], "search cpu": [], "tool wall": [], "tool cpu": []}
            found = 0
            for query in queries(words, seed):
                wall, cpu = time.perf_counter(), time.process_time()
                hits = store.search_archive(sid, query, 5)
                timings["search wall"].append(1000 * (time.perf_counter() - wall))
                timings["search cpu"].append(1000 * (time.process_time() - cpu))
                wall, cpu = time.perf_counter(), time.process_time()
                await tool.run({"query": query}, ctx)
                timings["tool wall"].append(1000 * (time.perf_counter() - wall))
                timings["tool cpu"].append(1000 * (time.process_time() - cpu))
                found += bool(hits)
    print(
        f"\nRecall speed: one session's archive of {len(archived):,} messages ({size / 1e6:.1f} MB of JSON; "
        f"archived and indexed in {indexing:.1f} s; database {db_mb:.0f} MB), {len(timings['tool wall'])} "
        f"queries ({found} with results)"
    )
    print(f"  {'':<40}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}")
    for label, key in (
        ("store search (top 5), wall", "search wall"),
        ("store search (top 5), CPU", "search cpu"),
        ("recall tool call (query form), wall", "tool wall"),
        ("recall tool call (query form), CPU", "tool cpu"),
    ):
        values = timings[key]
        print(f"  {label:<40}{statistics.median(values):>8.1f}{percentile(values, 95):>8.1f}{max(values):>8.1f}")
    return percentile(timings["tool wall"], 95)


async def recall_tables(
    summarizers: tuple[tuple[str, Summarize], ...],
    context_length: int,
    session_cls: type,
    more: Callable[[list[dict], int], list[dict]],
    words: list[str],
    seed: int,
) -> tuple[float, float]:
    """Both tables; returns (worst recovery %, p95 ms of the tool call)."""
    worst = await recovery_table(summarizers, context_length, session_cls, more, seed)
    p95 = await speed_table(session_cls, words, seed)
    return worst, p95
