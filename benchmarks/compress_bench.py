"""How fast one `ContextCompressor.compress()` pass is on long agent transcripts.

What it measures
----------------
Synthetic but agent-shaped sessions of 200, 1,000 and 5,000 messages are
generated with a seeded `random.Random` (same transcript every run): a system
prompt, user asks, assistant tool calls (terminal, read_file, write_file with
2-40 KB `content` arguments, patch, search_files, occasionally several in
parallel), tool outputs whose sizes are log-uniform between 100 B and 50 KB
(write_file answers with a one-line confirmation; about 10% of outputs are
verbatim repeats of an earlier output), and assistant text answers. With that
size distribution (mean about 8 KB per output) the 5,000-message session lands
near 1.6M estimated tokens when roughly one message in nine is a tool result;
the turn shape below is tuned for that, and the actual mix is printed. The summarizer is a stub that answers at once with a valid checkpoint
(every `## ` heading of `summary_prompt.SECTIONS`), so the timings are the
engine's own work: prune, boundaries, anchors, prompt rendering, assembly,
tool-pair sanitizing and token estimates.

The stub checkpoint names no command, so the summary guard's command check
(`summary_commands.foreign_command`: every command a checkpoint names must be in
the transcript) is timed on its own afterwards: a checkpoint naming twelve
commands the session ran, checked against each transcript, the worst case where
each command is looked for until it is found.

A fourth transcript is realistic rather than uniform (`agent_sessions`): 1,000
turns of shell work on a repository (about 4,700 messages, 1.4M tokens): test runs
that fail with a traceback and pass later, diffs, listings, long file reads with
line numbers, patches, installs, users pasting tracebacks, standing instructions,
and now and then a key a command printed. It is the row the speed target is
about, because uniform filler gives the redaction rules and the anchors nothing
to find.

For each transcript: the median wall time of `compress()` over several runs (a fresh
`ContextCompressor` for every run, one untimed warm-up run first, nothing
cached between runs), tokens before and after (both `estimate_tokens` of the messages, so the
columns compare), messages before/after, and whether the
prune alone was enough (`pruned_only`). Then the 5,000/1,000 time ratio, and,
in a separate untimed run, the peak memory allocated during one pass of the
5,000-message transcript (tracemalloc).

Settings: the default `CompressionConfig` and a 200,000-token window.

Against Hermes Agent
--------------------
With `--hermes PATH` (a checkout of Hermes Agent, or its wheel unpacked: the
folder that holds `agent/context_compressor.py`), the same transcripts are
compressed in the same run by Hermes's `ContextCompressor` (200,000-token
window, its defaults), its LLM call replaced by the same stub answer, and the
ratio of our median to Hermes's is printed. Nothing of Hermes is part of
hermeslite: the path is only imported from for this run. CPU time of this
process is compared as well as wall time, since other load on a shared
machine inflates wall time unevenly.

Targets
-------
- 5,000 messages: median <= 60 ms per `compress()`
- time ratio 5,000 / 1,000 messages <= 5.5 (the pass scales about linearly)
- with --hermes: our CPU time on the 1,000-turn agent transcript <= 0.3x Hermes's

The first line printed is the commit the run measured (with `+dirty` when the
work tree had changes), so a table copied into the docs says what it is for.

Run: `python benchmarks/compress_bench.py [--runs N] [--hermes PATH]`. It
prints PASS/MISS per target and always exits 0; it is a report, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
import types
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.agent_sessions import AgentSessions
from hermeslite.context import CompressionConfig, ContextCompressor, estimate_tokens
from hermeslite.context.summary_commands import commands_in, foreign_command
from hermeslite.context.summary_prompt import SECTIONS
from tests.builders import tool_exchange

SEED = 20261122
SIZES = (200, 1_000, 5_000)
CONTEXT_LENGTH = 200_000
TARGET_MS_5000 = 60.0
TARGET_RATIO = 5.5
TARGET_VS_HERMES = 0.3
AGENT_TURNS = 1_000
AGENT = "agent"  # the realistic transcript's key among the sizes

OUTPUT_MIN, OUTPUT_MAX = 100, 50_000  # tool output bytes, log-uniform
WRITE_MIN, WRITE_MAX = 2_000, 40_000  # write_file `content` bytes, log-uniform
REPEAT_SHARE = 0.10  # outputs that repeat an earlier output verbatim
PARALLEL_SHARE = 0.12  # tool-call messages that make 2-3 calls at once
# Turn shape, tuned so the 5,000-message transcript lands near 1.6M estimated tokens.
TOOL_ROUNDS = (0, 0, 1, 1, 1, 2)  # tool-call messages per user turn, drawn uniformly
CHAT_BETWEEN = (1, 2, 3, 4)  # extra (assistant, user) text exchanges per turn

WORDS = (
    "the a of to in is for on with that config parser module request retry token cache session build "
    "test failing passes error value path user model handler service invoice billing schema migration "
    "index query payload response client server timeout queue worker import export render template "
    "flag option default field record batch stream buffer offset limit commit branch release version"
).split()
DIRS = ("src", "lib", "services/billing", "services/auth", "app", "tests", "config", "scripts", "docs")
COMMANDS = (
    "pytest -q",
    "pytest tests/{f}.py -x",
    "python -m mypy {d}",
    "ruff check {d}",
    "git status",
    "git diff --stat",
    "ls -la {d}",
    "npm run build",
    "make lint",
    "grep -rn TODO {d}",
    "cat {d}/{f}.py",
)


def log_uniform(rng: random.Random, lo: int, hi: int) -> int:
    return int(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def text_block(rng: random.Random, size: int, kind: str) -> str:
    """About `size` characters of tool-output-looking text."""
    lines, total, n = [], 0, 0
    while total < size:
        n += 1
        if kind == "code":
            line = f"    {rng.choice(WORDS)}_{n} = {rng.choice(WORDS)}({rng.randint(0, 999)})  # {words(rng, 4)}"
        elif kind == "search":
            line = f"{rng.choice(DIRS)}/{rng.choice(WORDS)}.py:{rng.randint(1, 900)}: {words(rng, 6)}"
        else:
            line = f"[{n:05d}] {words(rng, rng.randint(4, 12))}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


class SessionGenerator:
    """Builds one agent-shaped transcript; every random choice comes from `rng`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.next_id = 0
        self.outputs: list[str] = []
        self.stats = {"tool_results": 0, "repeats": 0, "parallel": 0, "write_files": 0}

    def path(self) -> str:
        return f"{self.rng.choice(DIRS)}/{self.rng.choice(WORDS)}_{self.rng.randint(1, 60)}.py"

    def output(self, kind: str) -> str:
        if self.outputs and self.rng.random() < REPEAT_SHARE:
            self.stats["repeats"] += 1
            return self.rng.choice(self.outputs)
        body = text_block(self.rng, log_uniform(self.rng, OUTPUT_MIN, OUTPUT_MAX), kind)
        self.outputs.append(body)
        return body

    def call(self) -> tuple[str, dict, str]:
        rng = self.rng
        name = rng.choices(("terminal", "read_file", "write_file", "patch", "search_files"), (30, 30, 12, 14, 14))[0]
        if name == "terminal":
            command = rng.choice(COMMANDS).format(d=rng.choice(DIRS), f=rng.choice(WORDS))
            code = rng.choice((0, 0, 0, 1, 2))
            return name, {"command": command}, f"{self.output('log')}\n[exit code: {code}]"
        if name == "read_file":
            return name, {"path": self.path()}, self.output("code")
        if name == "search_files":
            return name, {"pattern": rng.choice(WORDS), "path": rng.choice(DIRS)}, self.output("search")
        if name == "write_file":
            self.stats["write_files"] += 1
            content = text_block(rng, log_uniform(rng, WRITE_MIN, WRITE_MAX), "code")
            path = self.path()
            return name, {"path": path, "content": content}, f"Wrote {len(content)} bytes to {path}"
        path = self.path()
        old, new = words(rng, 8), words(rng, 10)
        return name, {"path": path, "old_string": old, "new_string": new}, self.output("code")

    def tool_round(self) -> list[dict]:
        n = 1
        if self.rng.random() < PARALLEL_SHARE:
            n = self.rng.choice((2, 3))
            self.stats["parallel"] += 1
        calls = [self.call() for _ in range(n)]
        ids = []
        for _ in range(n):
            self.next_id += 1
            ids.append(f"call_{self.next_id:06d}")
        text = words(self.rng, self.rng.randint(5, 25)) if self.rng.random() < 0.4 else None
        self.stats["tool_results"] += n
        return tool_exchange(ids, calls, text)

    def user(self) -> dict:
        return {"role": "user", "content": f"{words(self.rng, self.rng.randint(8, 60))}?"}

    def answer(self) -> dict:
        paragraphs = [words(self.rng, self.rng.randint(20, 90)) for _ in range(self.rng.randint(1, 4))]
        return {"role": "assistant", "content": "\n\n".join(paragraphs)}

    def turn(self) -> list[dict]:
        msgs = [self.user()]
        for _ in range(self.rng.choice(TOOL_ROUNDS)):
            msgs += self.tool_round()
        msgs.append(self.answer())
        for _ in range(self.rng.choice(CHAT_BETWEEN)):
            msgs += [self.user(), self.answer()]
        return msgs

    def session(self, n: int) -> list[dict]:
        """Exactly `n` messages, the last one a user ask (compression runs before it is sent)."""
        msgs = [
            {"role": "system", "content": "You are a coding agent working in a git repository. " + words(self.rng, 300)}
        ]
        while n - len(msgs) > 40:
            msgs += self.turn()
        left = n - len(msgs)  # the last turn ended with an assistant answer
        if left % 2 == 0:  # user, assistant(2 parallel calls), tool, tool, answer
            msgs.append(self.user())
            calls = []
            for _ in range(2):
                calls.append(self.call())
            msgs += tool_exchange([f"call_fill_{k}" for k in range(2)], calls)
            msgs.append(self.answer())
            left -= 5
        while left > 1:
            msgs += [self.user(), self.answer()]
            left -= 2
        msgs.append({"role": "user", "content": "Now run the whole test suite again and tell me what still fails."})
        assert len(msgs) == n, (len(msgs), n)
        return msgs


STUB_SUMMARY = "\n".join(
    f"## {name}\n" + ("Fix the failing tests." if name == "Active Task" else "- recorded by the stub summarizer")
    for name, _ in SECTIONS
)


async def stub_summarize(prompt: str, model: str | None) -> str:
    return STUB_SUMMARY


def new_compressor() -> ContextCompressor:
    return ContextCompressor(
        CompressionConfig(), context_length=CONTEXT_LENGTH, summarize=stub_summarize, today=lambda: "2026-11-22"
    )


def time_one(loop: asyncio.AbstractEventLoop, msgs: list[dict]) -> tuple[float, float, object]:
    """Wall ms (the measure the targets use), CPU ms of this process (context only), and the result."""
    compressor = new_compressor()  # fresh state every run: no summary, no anchors, no guard
    c0, t0 = time.process_time(), time.perf_counter()
    result = loop.run_until_complete(compressor.compress(msgs))
    return (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000, result


def guard_cost(sessions: dict[int | str, list[dict]], runs: int) -> None:
    """CPU ms of the command check on a checkpoint naming twelve commands each session ran."""
    print("\nSummary guard: a checkpoint naming 12 commands the session ran, checked against the transcript")
    print(f"{'msgs':>11} {'commands checked':>17} {'verdict':>8} {'cpu ms':>7}")
    for n, msgs in sessions.items():
        ran = sorted(
            {
                json.loads(c["function"]["arguments"])["command"]
                for m in msgs
                for c in m.get("tool_calls") or []
                if c["function"]["name"] == "terminal"
            }
        )
        named = random.Random(SEED).sample(ran, min(12, len(ran)))
        done = "\n".join(f"{i}. Ran `{command}` (exit 0)." for i, command in enumerate(named, 1))
        summary = "\n".join(
            f"## {name}\n" + (done if name == "Completed Actions" else "- recorded by the stub summarizer")
            for name, _ in SECTIONS
        )
        cpu = []
        for _ in range(runs):
            c0 = time.process_time()
            reason = foreign_command(summary, msgs, None)
            cpu.append((time.process_time() - c0) * 1000)
        checked = len(list(commands_in(summary)))
        print(f"{label(n):>11} {checked:>17} {'refused' if reason else 'passed':>8} {statistics.median(cpu):>7.2f}")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def hermes_compressor(path: str) -> Callable[[], object]:
    """A factory of Hermes Agent's ContextCompressor from the checkout at `path`, its LLM call stubbed."""
    sys.path.insert(0, str(Path(path).resolve()))
    from agent import context_compressor  # type: ignore[import-not-found]  # Hermes's module, from `path`

    def stub_call_llm(**_: object) -> object:
        message = types.SimpleNamespace(content=STUB_SUMMARY)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])

    context_compressor.call_llm = stub_call_llm
    return lambda: context_compressor.ContextCompressor(
        model="anthropic/claude-sonnet-4-5", provider="anthropic", config_context_length=CONTEXT_LENGTH, quiet_mode=True
    )


def label(key: int | str) -> str:
    return f"{AGENT_TURNS:,} turns" if key == AGENT else f"{key:,}"


def commit() -> str:
    """The commit this run measured, `+dirty` when the work tree differs from it."""
    root = Path(__file__).resolve().parent.parent

    def git(*argv: str) -> str:
        done = subprocess.run(["git", *argv], cwd=root, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def compare_with_hermes(path: str, sessions: dict[int | str, list[dict]], runs: int) -> None:
    """Ours and Hermes's `compress()` on the same transcripts, run after run in turn (interleaved),
    so load that comes and goes on a shared machine falls on both alike."""
    make = hermes_compressor(path)
    loop = asyncio.new_event_loop()
    print(f"\nAgainst Hermes Agent's ContextCompressor ({path}), same transcripts, same stub summary, interleaved")
    header = (
        f"{'msgs':>11} {'hermes ms':>10} {'hermes cpu':>11} {'ours ms':>8} {'ours cpu':>9} {'wall x':>7} {'cpu x':>6}"
    )
    print(header)
    print("-" * len(header))
    cpu_ratio = 0.0
    for key in (1_000, 5_000, AGENT):
        msgs = sessions[key]
        make().compress(msgs)  # warm-ups, untimed
        time_one(loop, msgs)
        theirs: list[tuple[float, float]] = []
        ours: list[tuple[float, float]] = []
        after = 0
        for _ in range(runs):
            gc.collect()
            compressor = make()
            c0, t0 = time.process_time(), time.perf_counter()
            after = len(compressor.compress(msgs))
            theirs.append(((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000))
            gc.collect()
            wall, cpu, _ = time_one(loop, msgs)
            ours.append((wall, cpu))
        wall, cpu = (statistics.median(x[i] for x in theirs) for i in (0, 1))
        our_wall, our_cpu = (statistics.median(x[i] for x in ours) for i in (0, 1))
        cpu_ratio = our_cpu / cpu
        print(
            f"{label(key):>11} {wall:>10.1f} {cpu:>11.1f} {our_wall:>8.1f} {our_cpu:>9.1f} {our_wall / wall:>7.2f} "
            f"{cpu_ratio:>6.2f}   (Hermes leaves {after} messages)"
        )
    loop.close()
    print(
        f"  {AGENT_TURNS:,}-turn agent transcript: ours / Hermes = {cpu_ratio:.2f}x CPU   "
        f"target <= {TARGET_VS_HERMES}x   {verdict(cpu_ratio <= TARGET_VS_HERMES)}"
    )


def build_sessions() -> tuple[dict[int | str, list[dict]], dict[int, SessionGenerator], AgentSessions]:
    uniform = {n: SessionGenerator(random.Random(SEED + n)) for n in SIZES}
    sessions: dict[int | str, list[dict]] = {n: gen.session(n) for n, gen in uniform.items()}
    agent = AgentSessions(random.Random(SEED))
    sessions[AGENT] = agent.session(AGENT_TURNS)
    return sessions, uniform, agent


def describe(sessions: dict[int | str, list[dict]], uniform: dict[int, SessionGenerator], agent: AgentSessions) -> None:
    print(f"{'messages':>9} {'tool results':>12} {'repeats':>8} {'parallel':>8} {'write_file':>10} {'chars':>12}")
    for n in SIZES:
        st = uniform[n].stats
        chars = sum(len(json.dumps(m)) for m in sessions[n])
        print(
            f"{n:>9,} {st['tool_results']:>12,} {st['repeats']:>8,} {st['parallel']:>8,} {st['write_files']:>10,} {chars:>12,}"
        )
    msgs = sessions[AGENT]
    st = agent.stats
    print(
        f"\nAgent transcript: {st['turns']:,} turns, {len(msgs):,} messages, {estimate_tokens(msgs):,} tokens, "
        f"{st['tool_results']:,} tool results ({st['failed_runs']} failing test runs, {st['file_reads']} file reads, "
        f"{st['patches']} patches), {sum(len(json.dumps(m)) for m in msgs):,} chars\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--runs", type=int, default=9, help="timed runs per size (median reported)")
    parser.add_argument("--hermes", metavar="PATH", help="a Hermes Agent checkout to compare against")
    args = parser.parse_args()

    sessions, uniform, agent = build_sessions()
    print(f"compress_bench at commit {commit()}")
    print(
        f"context_length={CONTEXT_LENGTH:,}, default CompressionConfig, "
        f"{args.runs} timed runs per size after 1 warm-up, seed {SEED}"
    )
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load} "
        "(other load inflates both columns; cpu = this process only)\n"
    )
    describe(sessions, uniform, agent)

    loop = asyncio.new_event_loop()
    medians: dict[int | str, float] = {}
    rows = []
    for key, msgs in sessions.items():
        time_one(loop, msgs)  # warm-up, untimed
        times, cpu = [], []
        result = None
        for _ in range(args.runs):
            gc.collect()
            ms, cpu_ms, result = time_one(loop, msgs)
            times.append(ms)
            cpu.append(cpu_ms)
        medians[key] = statistics.median(times)
        rows.append((key, medians[key], min(times), max(times), statistics.median(cpu), result))

    header = (
        f"{'msgs':>11} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'cpu ms':>7} {'tokens before':>14} "
        f"{'tokens after':>13} {'msgs after':>10} {'pruned_only':>11} {'summary':>8}"
    )
    print(header)
    print("-" * len(header))
    for key, med, lo, hi, cpu_med, r in rows:
        kind = "fallback" if r.fallback_used else ("model" if r.summary else "-")
        before, after = estimate_tokens(sessions[key]), estimate_tokens(r.messages)
        print(
            f"{label(key):>11} {med:>10.2f} {lo:>8.2f} {hi:>8.2f} {cpu_med:>7.2f} {before:>14,} {after:>13,} "
            f"{r.messages_after:>10,} {r.pruned_only!s:>11} {kind:>8}"
        )
    tokens_5000 = estimate_tokens(sessions[5_000])
    print(f"\n5,000-message transcript: {tokens_5000:,} tokens by estimate_tokens (aim ~1.6M)")

    ratio = medians[5_000] / medians[1_000]
    print("\nTargets")
    print(
        f"  5,000 messages median {medians[5_000]:.2f} ms   target <= {TARGET_MS_5000:.0f} ms   "
        f"{verdict(medians[5_000] <= TARGET_MS_5000)}"
    )
    print(
        f"  ratio 5,000/1,000     {ratio:.2f}        target <= {TARGET_RATIO}        {verdict(ratio <= TARGET_RATIO)}"
    )
    guard_cost(sessions, args.runs)
    if args.hermes:
        compare_with_hermes(args.hermes, sessions, args.runs)

    # Memory: a separate, untimed pass (tracemalloc slows everything down).
    msgs = sessions[5_000]
    compressor = new_compressor()
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    loop.run_until_complete(compressor.compress(msgs))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    loop.close()
    print(
        f"\nPeak memory delta of one compress() on 5,000 messages (tracemalloc, untimed): {(peak - base) / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
