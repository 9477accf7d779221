"""The agent loop's own cost per turn, with the model and tools stubbed out.

What is measured: one `Agent.run_turn` (append the user message, preflight
estimate, one streamed reply, pressure event, persistence of both messages to
SQLite) on transcripts of 10, 1,000 and 10,000 messages. The model answers
instantly, so everything timed is hermeslite's own work.

Target: under 2 ms per turn at 10,000 messages, which needs token accounting
to be incremental (cached per-message counts) rather than re-estimating the
whole transcript every turn.

Run: python benchmarks/turn_overhead.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hermeslite.agent.factory import build_agent
from hermeslite.config import Settings
from hermeslite.llm.caching import CachePlan
from hermeslite.llm.settings import ModelConfig
from hermeslite.llm.types import Completed, Completion, LLMClient, StreamedText, Usage
from hermeslite.store.sessions import SessionStore

SIZES = (10, 1_000, 10_000)
TURNS = 200
TARGET_MS = 2.0


class InstantModel(LLMClient):
    """An LLMClient that answers at once with a short text."""

    model = "bench/instant"

    async def stream(self, messages, tools=None):
        yield StreamedText("ok")
        yield Completed(Completion({"role": "assistant", "content": "ok"}, Usage(prompt_tokens=None)))

    async def complete(self, messages, tools=None, *, model=None, timeout=None, cache=True):
        return Completion({"role": "assistant", "content": "ok"})

    def context_window(self) -> int:
        return 100_000_000

    def cache_plan(self) -> CachePlan:
        return CachePlan("none", detail="a benchmark model")


def history(n: int) -> list[dict]:
    """An alternating transcript of `n` messages, ~60 tokens each."""
    text = "a realistic sentence of conversation about the code " * 4
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{i} {text}"} for i in range(n)]


async def measure(size: int, folder: Path) -> tuple[float, float, int]:
    settings = replace(Settings(), model=ModelConfig(name="bench/instant"))
    settings = replace(settings, memory=replace(settings.memory, dir=str(folder / f"memory-{size}")))
    store = SessionStore(folder / f"sessions-{size}.db")
    agent = build_agent(settings, cwd=folder, interactive=False, llm=InstantModel(), store=store)
    agent.adopt_transcript([agent.messages[0], *history(size)])
    for n in range(10):  # warm up: first statements, first WAL pages
        await agent.run_turn(f"warm-up {n}")
    timings = []
    for n in range(TURNS):
        start = time.perf_counter()
        await agent.run_turn(f"question {n}")
        timings.append((time.perf_counter() - start) * 1000)
    store.close()
    return statistics.median(timings), max(timings), len(agent.messages)


def main() -> None:
    print(f"Agent loop overhead per turn (model and tools stubbed; {TURNS} turns each)\n")
    print(f"{'messages':>10} {'median ms/turn':>15} {'max ms':>8} {'final messages':>15}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            median, worst, final = asyncio.run(measure(size, Path(tmp)))
            results[size] = median
            print(f"{size:>10,} {median:>15.3f} {worst:>8.2f} {final:>15,}")
    ratio = results[SIZES[-1]] / results[SIZES[0]]
    verdict = "PASS" if results[SIZES[-1]] < TARGET_MS else "MISS"
    print(f"\n10,000 / 10 message cost ratio: {ratio:.2f} (flat means incremental accounting)")
    print(f"target: < {TARGET_MS} ms per turn at 10,000 messages -> {verdict}")


if __name__ == "__main__":
    main()
