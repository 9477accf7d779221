"""Long sessions against the fake Anthropic server: compaction cadence, cache hits and cost.

What is simulated: a session of 150 user turns (a read_file tool call every
third turn, replies of mixed length, files of mixed size) through the real
agent, litellm's real Anthropic path and the fake Messages server with its
modelled prompt cache (tests/fake_anthropic), at context windows of 8k, 32k,
200k and 1M tokens. Each window runs twice:

- ours: `model.prompt_caching: auto` (system + last 3 messages marked, 5m
  TTL) and the cache-aware summary request (the last turn request, or the
  current transcript, plus the checkpoint instruction);
- baseline: `prompt_caching: off` and the separate serialized summary prompt
  (forced by naming the same model as `compression.summary_model`).

Simulated time passes 20 s per model request, so entries live as they would
with a user who answers within a minute or two.

Printed per window: turns, compactions, turns per compaction, the longest run
of consecutive turns that compacted, input tokens billed uncached / written to
the cache / read from it, the cache-read share of all input, the cached share
of summary requests, output tokens, cost at Claude Sonnet prices (input $3/M,
5-minute cache write $3.75/M, cache read $0.30/M, output $15/M), requests the
server rejected and turns that failed; then our cost against the baseline's,
and the cached share of the extended summaries split by whether a memory
flush (which writes the newest turns to the cache) went just before them,
with how many of each extend the last turn request; and the floor of the
run's turn requests, measured from its own exchanges: their output, what
each adds to the conversation written to the cache once, and the rest of
each read from it, against the baseline, with what our run spends above it
(summary requests, memory flushes, and the turn requests' rewrites after a
compaction).

A fourth arm, "context tool", is ours with `compression.agent_tool: true`
and a model that steers: every BREAK_EVERY-th turn ends a sub-task, where
the model calls `context(action="status")` before its final reply and, when
the context is at STEER_AT% of the threshold or more (--steer-at), `context(action=
"compact", focus=...)`; the same user turns, tool calls and replies
otherwise. Printed in a second table against ours: compactions (how many the
model asked for), requests, summary requests and cost.

Idle arm (`--arms idle`, or both with the default `--arms main,idle`): the
"ours" session again, with an idle gap of six cache lifetimes (30 minutes at
`model.cache_ttl: 5m`, 6 hours at `1h`; the server's cache expires) before
every `--idle-every`-th turn (10), run once with `compression.idle_compact:
auto` and once with `off`, at each TTL of `--idle-ttls` (5m,1h). Printed per
window and TTL: compactions by trigger, cache writes and reads, output, the
summaries' and flushes' cost and the total of each, and auto's cost against off's.

Targets: >= 4 turns per compaction at 8k and never two in a row (this one
depends on budgets that scale with the window, an engine change); cache-read
share >= 85% at 32k and up; summary requests >= 90% read from the cache when
they fit; cost <= 0.3x the baseline.

Run: python benchmarks/session_bench.py [--turns 150] [--windows 8k,32k,200k,1m] [--arms main,idle]
    [--idle-every 10] [--idle-ttls 5m,1h]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hermeslite.agent import events as ev
from hermeslite.agent.factory import build_agent
from hermeslite.agent.flush import FLUSH_INSTRUCTION
from hermeslite.agent.memory_notes import HEADING as NOTES_HEADING
from hermeslite.config import Settings
from hermeslite.context.handoff import END, OPEN
from hermeslite.context.summary_prompt import SECTIONS
from hermeslite.llm.litellm_client import LiteLLMClient
from hermeslite.llm.settings import ModelConfig
from hermeslite.store.sessions import SessionStore
from tests.fake_anthropic import Exchange, FakeAnthropic, Reply
from tests.fake_anthropic.blocks import content_blocks, count_tokens, flatten, without_marker
from tests.summary_requests import is_extension_summary, is_summary_request

MODEL = "anthropic/claude-sonnet-4-5"
KEY_ENV = "HERMESLITE_BENCH_ANTHROPIC_KEY"
SECONDS_PER_REQUEST = 20.0
# USD per million tokens; a cache write costs 1.25x input for the 5-minute TTL, 2x for the hour TTL.
PRICE = {"input": 3.00, "write": 3.75, "write_1h": 6.00, "read": 0.30, "output": 15.00}
WINDOWS = {"8k": 8_192, "32k": 32_768, "200k": 200_000, "1m": 1_000_000}
CHECKPOINT = "\n".join(f"## {name}\n- {name.lower()} as recorded by the benchmark model." for name, _ in SECTIONS)
TOPICS = (
    "the retry policy",
    "the billing export",
    "the login flow",
    "the cache layer",
    "the CLI flags",
    "the database migrations",
    "the websocket handler",
    "the test fixtures",
)


BREAK_EVERY = 4  # the context-tool arm's model ends a sub-task every 4th turn and checks its context there
STEER_AT = 50  # ... and asks for a compaction when the context is at this share of the threshold (%) or more
STATUS_SHARE = re.compile(r"the context is at (\d+)% of it")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Script:
    """The simulated user and model: deterministic for a seed."""

    seed: int
    workdir: Path
    clock: Clock
    steer: bool = False  # the model uses the context tool at the end of each sub-task
    steer_at: int = STEER_AT  # ... and asks for a compaction from this share of the threshold (%)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        for n in range(60):
            size = random.Random(n).choice((1_000, 2_500, 4_000, 6_000))
            line = f"def step_{n}(request):  # handles part {n} of the service\n    return request\n"
            (self.workdir / f"module_{n}.py").write_text((line * (size // len(line) + 1))[:size])

    def user(self, turn: int) -> str:
        topic = TOPICS[turn % len(TOPICS)]
        detail = " Keep the public API as it is and mention any test that would break." * self.rng.choice((1, 2, 4))
        return f"turn {turn}: Please look at {topic} next and tell me what you would change.{detail}"

    def reply(self, body: dict) -> Reply:
        self.clock.now += SECONDS_PER_REQUEST
        text = _last_user_text(body)
        if is_summary_request(body):
            # Asked for memory notes with the checkpoint: nothing to save, as the flush answers.
            return Reply.say(
                f"{CHECKPOINT}\n## {NOTES_HEADING}\nNone." if f"## {NOTES_HEADING}" in text else CHECKPOINT
            )
        if FLUSH_INSTRUCTION in text:
            return Reply.say("nothing to save")
        if self.steer:
            steering = self._steer(body)
            if steering is not None:
                return steering
        if _answers_tools(body):
            return Reply.say(self._prose())
        found = re.search(r"turn (\d+):", text)
        turn = int(found.group(1)) if found else 1
        if turn % 3 == 0:
            return Reply.tool_use([("read_file", {"path": f"module_{turn % 60}.py"})], text="Let me read it.")
        return Reply.say(self._prose())

    def _steer(self, body: dict) -> Reply | None:
        """The context-tool arm's model at a sub-task's end, before its final reply: status, then compact
        when the context is at `steer_at`% of the threshold or more; None where it answers as the others do
        (the final reply then draws the same prose, so the arms' conversations stay alike)."""
        result = _tool_result_text(body)
        if result is not None and (share := STATUS_SHARE.search(result)):
            if int(share.group(1)) < self.steer_at:
                return None
            topic = TOPICS[(_turn_of(body) + 1) % len(TOPICS)]
            compact = ("context", {"action": "compact", "focus": f"{topic}, the next sub-task"})
            return Reply.tool_use([compact], text="That sub-task is done; compacting before the next.")
        if result is not None and "ompaction re" in result:  # the compact call's answer, accepted or refused
            return None
        turn = _turn_of(body)
        if turn % BREAK_EVERY or (result is None and turn % 3 == 0):  # not a break, or read_file comes first
            return None
        return Reply.tool_use([("context", {"action": "status"})], text="Sub-task done; checking the context.")

    def _prose(self) -> str:
        sentences = self.rng.choice((3, 12, 40))
        return " ".join(f"Point {i}: the change keeps callers working and the tests green." for i in range(sentences))


def _last_user_text(body: dict) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text") or "") for b in content if b.get("type") == "text")


def _turn_of(body: dict) -> int:
    """The number of the turn a request belongs to: the last "turn N:" of the latest user message
    holding one (a checkpoint merged in front of the user's text comes before it)."""
    for message in reversed(body["messages"]):
        content = message.get("content")
        if message.get("role") != "user":
            continue
        text = content if isinstance(content, str) else " ".join(str(b.get("text") or "") for b in content)
        if found := re.findall(r"turn (\d+):", text):
            return int(found[-1])
    return 1


def _tool_result_text(body: dict) -> str | None:
    """The text of the last message's tool result, when it is one."""
    content = body["messages"][-1]["content"]
    if not isinstance(content, list):
        return None
    for block in reversed(content):
        if block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                return inner
            return " ".join(str(b.get("text") or "") for b in inner or [] if isinstance(b, dict))
    return None


def _answers_tools(body: dict) -> bool:
    content = body["messages"][-1]["content"]
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


@dataclass
class Outcome:
    turns: int
    failed_turns: int
    compacting_turns: list[int]
    compactions: int
    exchanges: list[Exchange]
    triggers: list[str] = field(default_factory=list)  # of every compaction, in order

    def tokens(self, which: str, only=lambda x: True) -> int:
        field_name = {
            "input": "input_tokens",
            "write": "cache_creation_input_tokens",
            "read": "cache_read_input_tokens",
        }[which]
        return sum(getattr(x.usage, field_name) for x in self.exchanges if x.usage and only(x))

    @property
    def output(self) -> int:
        return sum(x.output_tokens for x in self.exchanges if x.usage)

    @property
    def rejected(self) -> int:
        return sum(1 for x in self.exchanges if x.status == 400)

    def cost(self, only=lambda x: True) -> float:
        billed = {k: self.tokens(k, only) for k in ("input", "write", "read")}
        billed["write_1h"] = sum(x.usage.ephemeral_1h_input_tokens for x in self.exchanges if x.usage and only(x))
        billed["write"] -= billed["write_1h"]
        billed["output"] = sum(x.output_tokens for x in self.exchanges if x.usage and only(x))
        return sum(PRICE[k] * v for k, v in billed.items()) / 1_000_000

    def read_share(self, only=lambda x: True) -> float:
        total = sum(self.tokens(k, only) for k in ("input", "write", "read"))
        return self.tokens("read", only) / total if total else 0.0

    @property
    def longest_run(self) -> int:
        best = run = 0
        previous = None
        for turn in self.compacting_turns:
            run = run + 1 if previous is not None and turn == previous + 1 else 1
            best, previous = max(best, run), turn
        return best


OURS, SERIALIZED, BASELINE, STEERED = "ours", "serialized", "baseline", "context tool"  # the arms


TTL_SECONDS = {"5m": 300.0, "1h": 3_600.0}
GAP_TTLS = 6  # an idle gap lasts six cache lifetimes: 30 minutes at the 5m TTL, 6 hours at 1h


@dataclass(frozen=True)
class Idle:
    """Idle gaps in the session: GAP_TTLS cache lifetimes of simulated time before every `every`-th turn."""

    every: int = 0  # 0: none
    ttl: str = "5m"  # model.cache_ttl
    compact: str = "auto"  # compression.idle_compact

    def before(self, turn: int) -> float:
        return GAP_TTLS * TTL_SECONDS[self.ttl] if self.every and turn % self.every == 0 else 0.0


async def run_session(
    window: int, *, arm: str, turns: int, seed: int, idle: Idle = Idle(), steer_at: int = STEER_AT
) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="hermeslite-session-bench-") as tmp:
        return await _session(Path(tmp), window, arm=arm, turns=turns, seed=seed, idle=idle, steer_at=steer_at)


async def _session(folder: Path, window: int, *, arm: str, turns: int, seed: int, idle: Idle, steer_at: int) -> Outcome:
    clock = Clock()
    script = Script(seed, folder, clock, steer=arm == STEERED, steer_at=steer_at)
    with FakeAnthropic(limit_tokens=window, clock=clock) as server:
        server.responder = script.reply
        model = ModelConfig(
            name=MODEL,
            api_base=server.base_url,
            api_key_env=KEY_ENV,
            context_window=window,
            prompt_caching="off" if arm == BASELINE else "auto",
            cache_ttl=idle.ttl,
        )
        base = Settings()
        settings = replace(
            base,
            model=model,
            compression=replace(
                base.compression,
                summary_model=None if arm in (OURS, STEERED) else MODEL,
                idle_compact=idle.compact,
                agent_tool=arm == STEERED,
            ),
            memory=replace(base.memory, dir=str(folder / "memory")),
        )
        store = SessionStore(folder / "sessions.db")
        agent = build_agent(
            settings, cwd=folder, interactive=False, store=store, llm=LiteLLMClient(model, max_retries=0), clock=clock
        )
        started: list[str] = []
        agent.subscribe(
            lambda event: started.append(event.trigger) if isinstance(event, ev.CompactionStarted) else None
        )
        compacting, failed, compactions, triggers = [], 0, 0, []
        for turn in range(1, turns + 1):
            started.clear()
            clock.now += idle.before(turn)
            finished = await agent.run_turn(script.user(turn))
            failed += not finished.ok
            if started:
                compacting.append(turn)
                compactions += len(started)
                triggers.extend(started)
        store.close()
        return Outcome(turns, failed, compacting, compactions, list(server.exchanges), triggers)


def row(label: str, o: Outcome) -> str:
    def extended(x: Exchange) -> bool:
        return is_extension_summary(x.body)

    n_summaries = sum(1 for x in o.exchanges if x.usage and is_summary_request(x.body))
    extensions = sum(1 for x in o.exchanges if x.usage and extended(x))
    per = f"{o.turns / o.compactions:.1f}" if o.compactions else "-"
    shares = f"{100 * o.read_share(extended):.0f}%" if extensions else "-"
    summary_share = f"{shares} ({extensions}/{n_summaries})" if n_summaries else "-"
    return (
        f"| {label} | {o.turns} | {o.compactions} | {per} | {o.longest_run} | "
        f"{o.tokens('input'):,} | {o.tokens('write'):,} | {o.tokens('read'):,} | "
        f"{100 * o.read_share():.0f}% | {summary_share} | {o.output:,} | ${o.cost():.2f} | {o.rejected} | "
        f"{o.failed_turns} |"
    )


STEER_HEADER = (
    "| window | arm | compactions (asked by the model) | turns/compaction | longest compacting run | requests | "
    "of them answering a context call (their cost) | summary requests | cache read | output | cost | cost / ours | "
    "failed turns |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def steer_row(label: str, arm: str, o: Outcome, ours: Outcome) -> str:
    """One row of the context-tool table: cadence, requests and cost, against ours."""
    accepted = [x for x in o.exchanges if x.usage]
    asked = sum(1 for t in o.triggers if t == "agent")
    per = f"{o.turns / o.compactions:.1f}" if o.compactions else "-"
    summaries = sum(1 for x in accepted if is_summary_request(x.body))
    steering = sum(1 for x in accepted if _answers_context(x))
    return (
        f"| {label} | {arm} | {o.compactions} ({asked}) | {per} | {o.longest_run} | {len(accepted)} | "
        f"{steering} (${o.cost(_answers_context):.2f}) | {summaries} | "
        f"{o.tokens('read'):,} | {o.output:,} | ${o.cost():.2f} | {o.cost() / ours.cost():.3f}x | {o.failed_turns} |"
    )


def _answers_context(x: Exchange) -> bool:
    """A request sent only because the model called the context tool: it carries that call's result."""
    result = _tool_result_text(x.body)
    return result is not None and ("compaction threshold:" in result or "ompaction re" in result)


def _is_flush(x: Exchange) -> bool:
    return FLUSH_INSTRUCTION in _last_user_text(x.body)


def _is_turn(x: Exchange) -> bool:
    return not is_summary_request(x.body) and not _is_flush(x)


def _extends_last_turn(accepted: list[Exchange], at: int) -> bool:
    """Whether summary `accepted[at]` is the last turn request before it plus one block (the instruction)."""
    last = next((x for x in reversed(accepted[:at]) if not is_summary_request(x.body) and not _is_flush(x)), None)
    if last is None:
        return False
    sent, summary = flatten(last.body), flatten(accepted[at].body)
    shared = len(sent.blocks)
    return len(summary.blocks) == shared + 1 and summary.hashes[shared - 1] == sent.hashes[-1]


def summary_split(label: str, o: Outcome) -> str:
    """The extended summaries' cached share, after a memory flush and without one, and how many of each
    extend the last turn request (the rest extend the transcript as it is, turns added since included)."""
    accepted = [x for x in o.exchanges if x.usage]
    after = {id(b) for a, b in pairwise(accepted) if _is_flush(a)}
    parts = []
    for name, wanted in (("after a flush", True), ("with no flush before", False)):
        at = [i for i, x in enumerate(accepted) if is_extension_summary(x.body) and (id(x) in after) == wanted]
        group = [accepted[i].usage for i in at]
        if group:
            shares = [u.cache_read_input_tokens / u.prompt_tokens for u in group]
            read = sum(u.cache_read_input_tokens for u in group) / sum(u.prompt_tokens for u in group)
            last = sum(_extends_last_turn(accepted, i) for i in at)
            parts.append(
                f"{name} {100 * read:.0f}% ({len(group)}, each {100 * min(shares):.0f}-"
                f"{100 * max(shares):.0f}%; {last} extend the last turn request)"
            )
    return f"{label} extended summaries: " + ("; ".join(parts) or "none")


def _conversation_tokens(body: dict, *, first: bool) -> int:
    """The tokens a turn request adds to the conversation: all of the first request (tool schemas, system
    prompt, the first ask), then the last two messages of each (the previous request's reply and the ask or
    tool results that followed it). A checkpoint is left out (a message merged behind one keeps its own
    text), and so is a system prompt rebuilt at a compaction: those are what compaction costs."""
    blocks = [] if not first else [*(body.get("tools") or []), *content_blocks(body.get("system"))]
    for message in body["messages"] if first else body["messages"][-2:]:
        for block in content_blocks(message.get("content")):
            plain = without_marker(block)
            text = plain.get("text") if isinstance(plain, dict) else None
            if isinstance(text, str) and OPEN in text:
                rest = text.split(END, 1)[1].lstrip() if END in text else ""
                if not rest:
                    continue
                plain = {**plain, "text": rest}
            blocks.append(plain)
    return sum(count_tokens(without_marker(b)) for b in blocks)


@dataclass(frozen=True)
class Floor:
    """What the session's turn requests cost at the least, whatever compaction does: their output, what
    each adds to the conversation written to the cache once, and the rest of each read from the cache."""

    output: int
    written: int
    read: int

    @classmethod
    def of(cls, o: Outcome) -> Floor:
        turns = [x for x in o.exchanges if x.usage and _is_turn(x)]
        written = sum(_conversation_tokens(x.body, first=i == 0) for i, x in enumerate(turns))
        carried = sum(x.usage.prompt_tokens for x in turns if x.usage)
        return cls(sum(x.output_tokens for x in turns), written, carried - written)

    def costs(self) -> tuple[float, float, float]:
        return (
            PRICE["output"] * self.output / 1e6,
            PRICE["write"] * self.written / 1e6,
            PRICE["read"] * self.read / 1e6,
        )


def floor_line(name: str, ours: Outcome, base: Outcome) -> str:
    floor = Floor.of(ours)
    output, written, read = floor.costs()
    total = output + written + read
    above = (ours.cost() - total) / base.cost()
    return (
        f"floor at {name}: turn output ${output:.2f} ({floor.output:,}) + one cache write of every turn's new "
        f"tokens ${written:.2f} ({floor.written:,}) + reads of the turn requests ${read:.2f} ({floor.read:,}) "
        f"= ${total:.2f}, {total / base.cost():.3f}x the baseline; ours ${ours.cost():.2f} is "
        f"${ours.cost() - total:.2f} ({above:.3f}x) above it: summary requests ${ours.cost(_summary):.2f}, memory flushes "
        f"${ours.cost(_is_flush):.2f}, turn requests ${ours.cost(_is_turn) - total:.2f} (what each compaction "
        "rewrites: the checkpoint and the kept tail behind it)"
    )


def commit() -> str:
    """The commit this run measured, `+dirty` when the work tree differs from it."""
    root = Path(__file__).resolve().parent.parent

    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=root, capture_output=True, text=True, check=False).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def _summary(x: Exchange) -> bool:
    return is_summary_request(x.body)


def idle_row(label: str, o: Outcome) -> str:
    counts = ", ".join(f"{o.triggers.count(t)} {t}" for t in sorted(set(o.triggers))) or "none"
    return (
        f"| {label} | {o.compactions} ({counts}) | {o.tokens('write'):,} | {o.tokens('read'):,} | "
        f"{o.output:,} | ${o.cost(_summary):.2f} | ${o.cost(_is_flush):.2f} | ${o.cost():.2f} | {o.failed_turns} |"
    )


async def idle_arm(args: argparse.Namespace) -> None:
    """The session with idle gaps, idle compaction on (auto) against off, at each cache TTL."""
    print(
        f"\nidle arm: before every {args.idle_every}th turn a gap of {GAP_TTLS} cache lifetimes "
        "(30 min at model.cache_ttl 5m, 6 h at 1h; 1h cache writes priced at $6/M)\n"
    )
    print(
        "| window, TTL, idle_compact | compactions (by trigger) | cache write | cache read | output | summaries | "
        "flushes | cost | failed turns |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for ttl in args.idle_ttls.split(","):
        for name in args.windows.split(","):
            window = WINDOWS[name.lower()]
            runs = {}
            for setting in ("auto", "off"):
                idle = Idle(args.idle_every, ttl, setting)
                runs[setting] = await run_session(window, arm=OURS, turns=args.turns, seed=args.seed, idle=idle)
                print(idle_row(f"{name} {ttl} {setting}", runs[setting]))
            off = runs["off"].cost()
            ratios.append(f"{name} {ttl} {runs['auto'].cost() / off:.3f}x" if off else f"{name} {ttl} -")
    print("\ncost with idle gaps, idle_compact auto / off: " + ", ".join(ratios))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--windows", default="8k,32k,200k,1m")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--steer-at", type=int, default=STEER_AT, help="the context-tool arm's compaction point, %%")
    parser.add_argument(
        "--no-context-tool", dest="context_tool", action="store_false", help="skip the context-tool arm"
    )
    parser.add_argument("--arms", default="main,idle", help="main (the three arms), idle (auto against off), or both")
    parser.add_argument("--idle-every", type=int, default=10)
    parser.add_argument("--idle-ttls", default="5m,1h", help="model.cache_ttl values the idle arm runs at")
    args = parser.parse_args()
    os.environ[KEY_ENV] = "benchmark-key"
    print(f"session_bench at commit {commit()}, {args.turns} turns, seed {args.seed}\n")
    started = time.perf_counter()
    arms = args.arms.split(",")
    if "main" in arms:
        await main_arms(args)
    if "idle" in arms:
        await idle_arm(args)
    print(f"({time.perf_counter() - started:.0f} s)")


async def main_arms(args: argparse.Namespace) -> None:
    print(
        "| window | turns | compactions | turns/compaction | longest compacting run | input uncached | "
        "cache write | cache read | read share | extended summaries read from cache (extended/all) | output | cost | "
        "rejected | failed turns |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios, splits, floors, steered = [], [], [], []
    for name in args.windows.split(","):
        window = WINDOWS[name.lower()]
        ours = await run_session(window, arm=OURS, turns=args.turns, seed=args.seed)
        serialized = await run_session(window, arm=SERIALIZED, turns=args.turns, seed=args.seed)
        base = await run_session(window, arm=BASELINE, turns=args.turns, seed=args.seed)
        print(row(f"{name} ours", ours))
        print(row(f"{name} caching, serialized summary", serialized))
        print(row(f"{name} baseline", base))
        if args.context_tool:
            tool = await run_session(window, arm=STEERED, turns=args.turns, seed=args.seed, steer_at=args.steer_at)
            steered += [steer_row(name, OURS, ours, ours), steer_row(name, STEERED, tool, ours)]
        ratios.append((name, ours.cost() / base.cost() if base.cost() else 0.0, serialized.cost() / base.cost()))
        splits.append(summary_split(f"{name} ours", ours))
        floors.append(floor_line(name, ours, base))
    print()
    print("cost, ours / baseline: " + ", ".join(f"{name} {ratio:.3f}x" for name, ratio, _ in ratios))
    print(
        "cost, caching with the serialized summary / baseline: "
        + ", ".join(f"{name} {ratio:.3f}x" for name, _, ratio in ratios)
    )
    print(
        "what the cache-aware summary saves over caching with the serialized one: "
        + ", ".join(f"{name} {100 * (1 - ours / ser):.0f}%" if ser else f"{name} -" for name, ours, ser in ratios)
    )
    print("\n".join(splits))
    print("\n".join(floors))
    if steered:
        print(
            f"\ncontext tool (compression.agent_tool: true): every {BREAK_EVERY}th turn ends a sub-task; there the "
            f"model checks context(status) and, at {args.steer_at}% of the threshold or more, asks context(compact)"
        )
        print(STEER_HEADER)
        print("\n".join(steered))


if __name__ == "__main__":
    asyncio.run(main())
