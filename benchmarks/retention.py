"""Do the facts a resumed agent needs survive compression, whatever the summarizer does?

What it measures
----------------
A long, seeded agent session (400+ messages of reads, edits, test runs, some
failing, and chat) has six "needles" planted in its middle, so they fall into
the region a compaction replaces with a summary:

- a user constraint:        "Never use the requests library; use httpx."
- an older pending ask:     "Also, later, add a CHANGELOG entry for 2.4.1."
- a written path:           write_file services/billing/invoice_renderer.py
- a read path:              read_file config/feature_flags.toml
- a failing command:        `pytest tests/test_invoices.py -k rounding`, exit code 1
- its error line:           "E   AssertionError: total 10.004 != 10.00"

The window is small enough that pruning old tool output cannot get under the
threshold, so every pass must summarize the middle. Each pass uses one of six
summarizers, from broken to plausible-but-lossy:

- empty:   returns ""
- chatty:  friendly prose without any headings
- echo:    returns the prompt it was given
- wrong:   Markdown with headings, but not the checkpoint's headings
- raises:  raises an ordinary exception (a dropped connection)
- lossy:   a well-formed checkpoint with every heading that simply omits all six needles

A needle survives when it is still in the text the model would see after the
pass: the contents of the provider payload (private `_` bookkeeping keys such
as the stored anchors are stripped first, since the model never sees them), as
an exact substring; the failing command counts only when the command and its
exit code 1 stand together on one line (e.g. "`pytest ... -k rounding` -> exit 1").

A second round compresses the same session three times in a row with the
lossy summarizer, appending new filler turns (more reads, edits, commands and
errors) between passes, to show the needles carry over from one compaction
to the next.

Target: 100% of the needles survive for every summarizer and every round.

160 new messages between passes is already generous for this window.
`--round-filler N --passes K` stretch it. The recorded facts are ranked by
what they are within a budget that scales with the window
(`hermeslite/context/ranking.py`): the constraint (a standing instruction),
the pending ask (a request for later), the written path and the failing
command with its error line outrank files only read, which outrank ordinary
user messages. This filler reuses forty paths, so even `--round-filler 600
--passes 10` keeps every needle; in a session that reads many more distinct
files, the read path is the first needle to age out.

Then the drift table (`retention_drift.py`): issue 11's session, ten rounds of
twenty ~200-character requests each reading another file, a forced compaction
after each round, survival per needle after 1, 2, 5 and 10 compactions for
every summarizer. Target: 100% after the tenth. Its failure rows
(`retention_failures.py`, issue 19's case): a failing test run that is never
fixed must stay visible with its error line, and one fixed in the first round
by a rerun spelled differently must be gone, while three tests a round fail and
pass again.

Then the recall tables (`retention_recall.py`): needles only the archive still
holds (a value a tool printed once, a config key read from a file, ...), how many
one `recall` query built from the needle's own words gets back (the value in a
top-3 excerpt) after each summarizer, and the p50/p95 of recall queries on a
20,000-message archive. Targets: 100%, and p95 under 50 ms.

Run: `python benchmarks/retention.py [--round-filler N] [--passes K]`. It prints
the tables and a PASS/MISS line and always exits 0; it is a report, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retention_drift import drift_table
from retention_failures import failure_table
from retention_recall import recall_tables

from hermeslite.context import ContextCompressor, estimate_tokens
from hermeslite.context.summary_prompt import SECTIONS
from tests.builders import pinned_compressor, tool_exchange, visible_text

SEED = 7
CONTEXT_LENGTH = 32_000  # threshold 16k tokens: the session is far over it even after pruning
FILLER_BEFORE = 200  # messages of ordinary work before the needles
FILLER_AFTER = 200  # ... and after them
ROUND_FILLER = 160  # messages appended between iterative passes (--round-filler)
PASSES = 3  # iterative passes (--passes)

CONSTRAINT = "Never use the requests library; use httpx."
PENDING_ASK = "Also, later, add a CHANGELOG entry for 2.4.1."
WRITTEN_PATH = "services/billing/invoice_renderer.py"
READ_PATH = "config/feature_flags.toml"
FAILING_COMMAND = "pytest tests/test_invoices.py -k rounding"
ERROR_LINE = "E   AssertionError: total 10.004 != 10.00"
EXIT_1 = re.compile(r"\bexit(?:[ _]code)?\W{0,3}1\b", re.IGNORECASE)


def _command_with_exit_1(text: str) -> bool:
    return any(FAILING_COMMAND in line and EXIT_1.search(line) for line in text.splitlines())


NEEDLES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("user constraint (httpx)", lambda t: CONSTRAINT in t),
    ("pending ask (CHANGELOG 2.4.1)", lambda t: PENDING_ASK in t),
    ("written path", lambda t: WRITTEN_PATH in t),
    ("read path", lambda t: READ_PATH in t),
    ("failing command + exit 1", _command_with_exit_1),
    ("error line", lambda t: ERROR_LINE in t),
)

# -- the session ----------------------------------------------------------------

WORDS = (
    "parser config cache retry session token schema handler worker queue client server payload invoice "
    "customer order ledger tax discount currency export import report template fixture migration index"
).split()
PATHS = [
    f"{d}/{w}.py"
    for d in ("src/app", "src/core", "services/orders", "services/auth", "lib/util")
    for w in ("models", "views", "client", "cache", "tasks", "schema", "utils", "api")
]
TESTS = [f"tests/test_{w}.py" for w in ("orders", "auth", "cache", "client", "models", "api", "tasks", "utils")]


class Session:
    """A seeded builder of agent-shaped turns; never mentions a needle by accident."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.messages: list[dict] = []
        self.ids = 0

    def words(self, lo: int, hi: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(lo, hi)))

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def assistant(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})

    def calls(self, calls: list[tuple[str, dict, str]], text: str | None = None) -> None:
        ids = [f"call_{self.ids + n:05d}" for n in range(1, len(calls) + 1)]
        self.ids += len(calls)
        self.messages += tool_exchange(ids, calls, text)

    # tool results of ordinary work
    def code(self, lines: int) -> str:
        out = []
        for k in range(lines):
            name = f"{self.rng.choice(WORDS)}_{k}"
            if self.rng.random() < 0.15:  # real code mentions errors without being one
                out.append(
                    f"def {name}(x):\n    try:\n        return lookup[x]\n    except KeyError:\n"
                    f'        raise ValueError(f"unknown {self.rng.choice(WORDS)}: {{x}}")'
                )
            else:
                out.append(f"def {name}(x):\n    return x  # {self.words(3, 9)}")
        return "\n".join(out)

    def read(self) -> tuple[str, dict, str]:
        return "read_file", {"path": self.rng.choice(PATHS)}, self.code(self.rng.randint(8, 60))

    def edit(self) -> tuple[str, dict, str]:
        path = self.rng.choice(PATHS)
        if self.rng.random() < 0.5:
            content = self.code(self.rng.randint(10, 50))
            return "write_file", {"path": path, "content": content}, f"Wrote {len(content)} bytes to {path}"
        return (
            "patch",
            {"path": path, "old_string": self.words(3, 6), "new_string": self.words(3, 6)},
            f"Applied 1 hunk to {path}",
        )

    def test_run(self, fail: bool) -> tuple[str, dict, str]:
        test = self.rng.choice(TESTS)
        n = self.rng.randint(5, 40)
        body = "\n".join(f"{test}::test_{self.rng.choice(WORDS)}_{k} PASSED" for k in range(n))
        if fail:
            name = f"test_{self.rng.choice(WORDS)}"
            a, b = self.rng.randint(1, 9), self.rng.randint(10, 19)
            body += (
                f"\n{test}::{name} FAILED\n\n    def {name}():\n>       assert compute() == {b}\n"
                f"E       assert {a} == {b}\n\nFAILED {test}::{name} - assert {a} == {b}\n"
                f"1 failed, {n} passed in 0.{self.rng.randint(10, 99)}s\n[exit code: 1]"
            )
        else:
            body += f"\n{n} passed in 0.{self.rng.randint(10, 99)}s\n[exit code: 0]"
        return "terminal", {"command": f"pytest {test} -q"}, body

    def shell(self) -> tuple[str, dict, str]:
        """Everyday commands, mostly distinct: listings, git, linters, greps (exit 1 when nothing matches)."""
        kind = self.rng.randrange(5)
        if kind == 0:
            d = self.rng.choice(PATHS).rsplit("/", 1)[0]
            return (
                "terminal",
                {"command": f"ls -la {d}"},
                "\n".join(f"-rw-r--r-- 1 dev dev {self.rng.randint(100, 9000)} {w}.py" for w in WORDS[:8])
                + "\n[exit code: 0]",
            )
        if kind == 1:
            return (
                "terminal",
                {"command": self.rng.choice(("git status --short", "git diff --stat", "git log --oneline -5"))},
                "\n".join(f" M {self.rng.choice(PATHS)}" for _ in range(self.rng.randint(1, 6))) + "\n[exit code: 0]",
            )
        if kind == 2:
            return "terminal", {"command": f"ruff check {self.rng.choice(PATHS)}"}, "All checks passed!\n[exit code: 0]"
        word = f"{self.rng.choice(WORDS)}_{self.rng.randint(1, 99)}"
        if kind == 3:
            return "terminal", {"command": f"grep -rn {word} src services"}, "[exit code: 1]"
        return (
            "terminal",
            {"command": f"python -c 'import {self.rng.choice(WORDS)}; print(\"ok\")'"},
            "ok\n[exit code: 0]",
        )

    def search(self) -> tuple[str, dict, str]:
        word = self.rng.choice(WORDS)
        hits = [
            f"{self.rng.choice(PATHS)}:{self.rng.randint(1, 300)}: {word} = {self.words(2, 6)}"
            for _ in range(self.rng.randint(1, 25))
        ]
        return "search_files", {"pattern": word}, "\n".join(hits) + f"\n{len(hits)} matches"

    def filler_turn(self) -> None:
        self.user(f"Next: {self.words(6, 30)}.")
        kind = self.rng.random()
        if kind < 0.30:
            self.calls([self.read() for _ in range(self.rng.choice((1, 1, 2, 3)))])
            self.calls([self.edit()], text="Making the change.")
            self.calls([self.test_run(fail=self.rng.random() < 0.25)])
        elif kind < 0.55:
            self.calls([self.search()])
            self.calls([self.read()])
        elif kind < 0.75:
            self.calls([self.test_run(fail=self.rng.random() < 0.3)])
        elif kind < 0.90:
            self.calls([self.shell()])
            self.calls([self.shell()])
        self.assistant(f"Done: {self.words(10, 50)}.")

    def filler(self, n: int) -> None:
        goal = len(self.messages) + n
        while len(self.messages) < goal:
            self.filler_turn()

    def needles(self) -> tuple[int, int]:
        start = len(self.messages)
        self.user(
            f"Before you touch the HTTP client code: {CONSTRAINT} The sync wrappers in lib/util/client.py can stay."
        )
        self.assistant("Understood: HTTP calls go through httpx from now on.")
        self.filler(12)
        self.user("Render the invoices from a template instead of concatenating strings, and check the rounding.")
        toml = '[flags]\ninvoice_templates = true\nlegacy_pdf = false\nrounding_mode = "half_even"\n'
        self.calls([("read_file", {"path": READ_PATH}, toml)])
        renderer = (
            "from decimal import Decimal, ROUND_HALF_EVEN\n\n\nclass InvoiceRenderer:\n"
            + '    def line(self, item):\n        return f"{item.name}: {item.total}"\n' * 30
        )
        self.calls(
            [
                (
                    "write_file",
                    {"path": WRITTEN_PATH, "content": renderer},
                    f"Wrote {len(renderer)} bytes to {WRITTEN_PATH}",
                )
            ],
            text="Writing the renderer.",
        )
        output = (
            "tests/test_invoices.py::test_rounding_half_even FAILED\n\n"
            "    def test_rounding_half_even():\n        inv = make_invoice([Decimal('3.3345')] * 3)\n"
            ">       assert inv.total == Decimal('10.00')\n"
            f"{ERROR_LINE}\n\n"
            "FAILED tests/test_invoices.py::test_rounding_half_even - AssertionError: total 10.004 != 10.00\n"
            "1 failed, 4 passed, 31 deselected in 0.41s\n[exit code: 1]"
        )
        self.calls([("terminal", {"command": FAILING_COMMAND}, output)])
        self.assistant(
            "The renderer is in place, but the rounding test still fails: the total is not quantized "
            "to cents before the comparison."
        )
        self.filler(10)
        self.user(f"Looks good so far. {PENDING_ASK}")
        self.assistant("Noted, I will come back to that.")
        return start, len(self.messages)


def build_session() -> tuple[list[dict], tuple[int, int]]:
    s = Session(random.Random(SEED))
    s.messages.append({"role": "system", "content": "You are a coding agent working in the acme-billing repository."})
    s.filler(FILLER_BEFORE)
    span = s.needles()
    s.filler(FILLER_AFTER)
    s.user("Now run the full test suite and summarize what still fails.")
    return s.messages, span


def more_turns(messages: list[dict], rng: random.Random, n: int) -> list[dict]:
    """The transcript after one more stretch of work: the pending ask answered, new turns, a new ask."""
    s = Session(rng)
    s.ids = 10_000 * rng.randint(1, 9)
    s.messages = list(messages)
    s.assistant(f"Here is where things stand: {s.words(10, 30)}.")
    s.filler(n)
    s.user(f"Next up: {s.words(5, 12)}. Run the tests when you are done.")
    return s.messages


# -- summarizers ------------------------------------------------------------------

Summarize = Callable[[str, "str | None"], Awaitable[str]]

LOSSY = "\n".join(
    f"## {name}\n{body}"
    for name, body in (
        ("Active Task", "Run the full test suite and report failures."),
        ("Goal", "Keep the billing and orders services healthy while refactoring."),
        ("Constraints & Preferences", "- Keep the public API stable."),
        (
            "Completed Actions",
            "1. Read and edited several modules under src/ and services/; most test runs passed (exit 0).",
        ),
        ("Active State", "Tests mostly green."),
        ("In Progress", "Refactoring continues."),
        ("Blocked", "None."),
        ("Key Decisions", "Prefer small patches over rewrites."),
        ("Resolved Questions", "None."),
        ("Pending User Asks", "None."),
        ("Relevant Files", "- src/app/models.py: data models"),
        ("Remaining Work", "Run the full suite and look at any failures."),
        ("Critical Values", "None."),
    )
)
assert {name for name, _ in SECTIONS} == {line[3:] for line in LOSSY.splitlines() if line.startswith("## ")}


async def empty(prompt: str, model: str | None) -> str:
    return ""


async def chatty(prompt: str, model: str | None) -> str:
    return (
        "Sure! Here's a quick recap of the conversation so far. The user and the assistant worked through "
        "a bunch of changes in the billing code, ran the tests a few times and fixed what broke. Overall "
        "things are in good shape. Let me know if you want more detail on any part!"
    )


async def echo(prompt: str, model: str | None) -> str:
    return prompt


async def wrong_template(prompt: str, model: str | None) -> str:
    return (
        "# Session notes\n\n## Overview\nRefactoring work on the billing service.\n\n"
        "## Timeline\n- read some files\n- ran tests\n\n## Next Steps\n- keep going\n"
    )


async def raises(prompt: str, model: str | None) -> str:
    raise ConnectionResetError("upstream connection reset by peer")


async def lossy(prompt: str, model: str | None) -> str:
    return LOSSY


SUMMARIZERS: tuple[tuple[str, Summarize], ...] = (
    ("empty", empty),
    ("chatty", chatty),
    ("echo", echo),
    ("wrong", wrong_template),
    ("raises", raises),
    ("lossy", lossy),
)


# -- checking -----------------------------------------------------------------------


def survival(messages: list[dict]) -> list[bool]:
    text = visible_text(messages)
    return [check(text) for _, check in NEEDLES]


def compressor(summarize: Summarize) -> ContextCompressor:
    return pinned_compressor(summarize, CONTEXT_LENGTH)


def table(title: str, columns: list[str], cells: list[list[bool]]) -> list[float]:
    """cells[column][needle]; returns the survival percentage of each column."""
    width = max(len(name) for name, _ in NEEDLES) + 2
    col = max(8, *(len(c) + 2 for c in columns))
    print(title)
    print(f"{'needle':<{width}}" + "".join(f"{c:>{col}}" for c in columns))
    print("-" * (width + col * len(columns)))
    for i, (name, _) in enumerate(NEEDLES):
        print(f"{name:<{width}}" + "".join(f"{('yes' if cells[c][i] else 'NO'):>{col}}" for c in range(len(columns))))
    pcts = [100.0 * sum(column) / len(column) for column in cells]
    print("-" * (width + col * len(columns)))
    print(f"{'survival':<{width}}" + "".join(f"{p:>{col - 1}.0f}%" for p in pcts))
    return pcts


async def main(round_filler: int = ROUND_FILLER, passes: int = PASSES) -> int:
    session, (lo, hi) = build_session()
    total = estimate_tokens(session)
    probe = compressor(lossy)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    print(f"commit {head.stdout.strip() or 'unknown'}")
    print(
        f"retention: {len(session)} messages, {total:,} tokens; needles planted in messages {lo}-{hi - 1}; "
        f"context_length={CONTEXT_LENGTH:,} (threshold {probe.threshold_tokens:,})"
    )
    planted = visible_text(session)
    if not all(s in planted for s in (CONSTRAINT, PENDING_ASK, WRITTEN_PATH, READ_PATH, FAILING_COMMAND, ERROR_LINE)):
        print("bug in the benchmark: a needle is missing from the uncompressed session")
        return 0

    needle_msgs = [json.dumps(m, sort_keys=True) for m in session[lo:hi]]
    columns, cells, notes = [], [], []
    for name, fn in SUMMARIZERS:
        r = await compressor(fn).compress(session)
        kept = {json.dumps(m, sort_keys=True) for m in r.messages}
        in_middle = not any(m in kept for m in needle_msgs)
        columns.append(name)
        cells.append(survival(r.messages))
        how = "fallback" if r.fallback_used else ("model summary" if r.summary else "no summary")
        notes.append(
            f"  {name:<7} {how:<13} pruned_only={r.pruned_only!s:<5} aborted={r.aborted!s:<5} "
            f"dropped={r.dropped:<4} {r.messages_before}->{r.messages_after} msgs, "
            f"{r.tokens_before:,}->{r.tokens_after:,} tokens, needle turns compacted={in_middle}"
            + (f"\n          error: {r.error}" if r.error else "")
        )
    print("\nPer summarizer:")
    print("\n".join(notes))
    print()
    pcts = table("Needle survival after one compaction (yes = exact text still visible to the model)", columns, cells)

    # Round 2: three passes in a row with the lossy summarizer, new work in between.
    rng = random.Random(SEED + 1)
    c = compressor(lossy)
    msgs = session
    rounds, round_cells, round_notes = [], [], []
    for n in range(1, passes + 1):
        r = await c.compress(msgs)
        rounds.append(f"pass {n}")
        round_cells.append(survival(r.messages))
        round_notes.append(
            f"  pass {n}: {r.messages_before}->{r.messages_after} msgs, {r.tokens_before:,}->"
            f"{r.tokens_after:,} tokens, pruned_only={r.pruned_only}, fallback={r.fallback_used}, "
            f"dropped={r.dropped}"
        )
        msgs = more_turns(r.messages, rng, round_filler)
    print(
        f"\nIterative: the lossy summarizer {passes} times in a row, "
        f"{round_filler}+ new messages of work appended between passes"
    )
    print("\n".join(round_notes))
    print()
    round_pcts = table("Needle survival after each pass", rounds, round_cells)

    worst_drift = await drift_table(SUMMARIZERS, CONTEXT_LENGTH)
    worst_failures = await failure_table(SUMMARIZERS, CONTEXT_LENGTH)
    worst_recall, p95 = await recall_tables(
        SUMMARIZERS,
        CONTEXT_LENGTH,
        Session,
        lambda msgs, n: more_turns(msgs, random.Random(SEED + 10 + n), round_filler),
        WORDS,
        SEED + 2,
    )
    worst = min(pcts + round_pcts)
    print(
        f"\nTarget: 100% survival for every summarizer and every pass. "
        f"Worst: {worst:.0f}%  {'PASS' if worst == 100.0 else 'MISS'}"
    )
    print(
        f"Target: 100% after ten compactions in the drift table. "
        f"Worst: {worst_drift:.0f}%  {'PASS' if worst_drift == 100.0 else 'MISS'}"
    )
    print(
        f"Target: the open failure kept and the fixed one gone after ten compactions. "
        f"Worst: {worst_failures:.0f}%  {'PASS' if worst_failures == 100.0 else 'MISS'}"
    )
    print(
        f"Target: 100% of the compacted needles back with one recall query. "
        f"Worst: {worst_recall:.0f}%  {'PASS' if worst_recall == 100.0 else 'MISS'}"
    )
    print(
        f"Target: recall query p95 under 50 ms on a 20,000-message archive. "
        f"p95: {p95:.1f} ms  {'PASS' if p95 < 50 else 'MISS'}"
    )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-filler", type=int, default=ROUND_FILLER, help="messages appended between passes")
    parser.add_argument("--passes", type=int, default=PASSES, help="iterative passes with the lossy summarizer")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.round_filler, args.passes)))
