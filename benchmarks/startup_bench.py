"""How soon hermeslite is usable, arm by arm: the app's first frame and a `-p` run's first request.

Arms
----
Each arm is one way of starting hermeslite (a config and a command line);
the table has a row per arm, so another way to start (another program, another
config) is one more entry in ARMS. The arms now:

- `no MCP servers`: hermeslite with an OpenAI-compatible model, nothing else.
- `3 stdio MCP servers`: the same plus three stdio servers: the test server
  written with the SDK (tests/mcp_servers/stdio_server.py), the same with 20
  more generated tools, and `mcp-server-time` from the registry.

What it measures
----------------
1. First frame: the app in a child process on a real 80x24 pseudo-terminal,
   its settings read from the arm's config file as `hermeslite` reads them,
   reporting when its first frame is painted (the agent, litellm and the MCP
   servers start only after it). Process start -> first frame.
2. `-p`: `hermeslite -p` against the scripted OpenAI-compatible server on
   127.0.0.1; process start -> the first request arriving at the server, and
   -> the process's exit. A `-p` run waits for servers still starting before
   its first request; they start in the background while litellm loads, so the
   target is: no later than without them. The first request's tool list shows
   whether every server's tools made it in.
3. What each server's tool schemas cost in every request: tokens by the
   meter's estimate (the same count /context and /mcp show), from the tools of
   that first request.
4. `hermeslite -p hello` beside `llm -m ... hello` (Simon Willison's `llm`, the
   lightest well-known CLI that sends one prompt to an OpenAI-compatible
   server) against the same scripted server: wall time and CPU time (user +
   system of the process and its children) from start to exit, peak memory,
   and hermeslite's ratio to llm. The target is at most 1.5x in wall and CPU.
   `llm` comes from its own venv, so no plugin of the project's venv (the
   embedded model's, which loads llama.cpp) slows it down:
   `python -m venv /tmp/llm-venv && /tmp/llm-venv/bin/pip install 'llm>=0.32.1,<0.33'`,
   then `--llm /tmp/llm-venv/bin/llm`. Without `--llm` this table is left out.

Runs alternate between the arms (load drifts on a shared machine); the median
and the range are reported. Run: `python benchmarks/startup_bench.py [--runs N] [--llm PATH]`.
It prints the commit it ran on, the load, and the tables; it is a report, not a test.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hermeslite.agent.ledger import schema_tokens  # noqa: E402
from tests.mcp_servers import stdio_entry  # noqa: E402
from tests.server import MODEL, Reply, ScriptedServer  # noqa: E402

TIME_SERVER = Path(sys.executable).with_name("mcp-server-time")

# The child for the first frame: settings from the arm's config file, then the app; it reports
# when the app starts the agent, which it does right after its first frame, and leaves.
FRAME_CHILD = r"""
import json, sys, time
from pathlib import Path
from hermeslite.config import load_settings
from hermeslite.tui.app import HermesApp

class Probe(HermesApp):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        start = self.host.start

        def report_then_start():
            Path(sys.argv[1]).write_text(json.dumps({"frame_at": time.time()}))
            self.exit(0)
            return start()

        self.host.start = report_then_start

app = Probe(load_settings().settings, cwd=Path.cwd(), tune_gc=True)
app.run()
"""


@dataclass(frozen=True)
class Arm:
    """One way of starting hermeslite: the config it reads, and the command that runs one prompt."""

    name: str
    config: dict[str, Any] = field(default_factory=dict)

    def prepare(self, home: Path, server: ScriptedServer) -> dict[str, str]:
        """Write the arm's config under `home`; the environment its processes run with."""
        config = {"model": {"name": MODEL, "api_base": server.base_url, "context_window": 100_000}, **self.config}
        path = home / "config" / "config.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(config))
        env = {**os.environ, "HERMESLITE_HOME": str(home), "TERM": "xterm-256color"}
        env.pop("HERMESLITE_CONFIG", None)
        return env

    def prompt_argv(self) -> list[str]:
        return [sys.executable, "-m", "hermeslite", "-p", "hello"]

    def frame_argv(self, result: Path) -> list[str]:
        return [sys.executable, "-c", FRAME_CHILD, str(result)]


THREE_SERVERS = {
    "tools": stdio_entry(),
    "lookup": stdio_entry("--tools", "20"),
    "time": {"command": str(TIME_SERVER), "args": ["--local-timezone", "UTC"]},
}
ARMS: tuple[Arm, ...] = (
    Arm("no MCP servers"),
    Arm("3 stdio MCP servers", {"mcp_servers": THREE_SERVERS}),
)


def first_frame(arm: Arm, server: ScriptedServer) -> float:
    """Process start -> first frame, in seconds, on a fresh 80x24 pty."""
    with tempfile.TemporaryDirectory() as tmp:
        env = arm.prepare(Path(tmp) / "home", server)
        result = Path(tmp) / "frame.json"
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        started = time.time()
        child = subprocess.Popen(
            arm.frame_argv(result), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tmp, start_new_session=True
        )
        os.close(slave)
        deadline = time.time() + 60
        while child.poll() is None and time.time() < deadline:
            if select.select([master], [], [], 0.05)[0]:
                try:
                    os.read(master, 65536)  # drained, as a terminal would be
                except OSError:
                    break
        child.wait(timeout=30)
        os.close(master)
        return json.loads(result.read_text())["frame_at"] - started


def prompt_run(arm: Arm, server: ScriptedServer) -> dict[str, Any]:
    """One `-p` run: seconds to its first request and to its exit, and that request's tools."""
    arrived: list[float] = []

    def stamp(body: dict[str, Any]) -> Reply:
        arrived.append(time.time())
        return Reply.text("hi")

    server.responder = stamp
    with tempfile.TemporaryDirectory() as tmp:
        env = arm.prepare(Path(tmp) / "home", server)
        started = time.time()
        done = subprocess.run(arm.prompt_argv(), env=env, cwd=tmp, capture_output=True, text=True, timeout=300)
        ended = time.time()
    if done.returncode != 0 or not arrived:
        raise RuntimeError(f"{arm.name}: the run failed ({done.returncode}): {done.stderr[-2000:]}")
    return {"request": arrived[0] - started, "exit": ended - started, "tools": server.requests[-1].get("tools") or []}


@dataclass(frozen=True)
class Cost:
    """What one process cost from start to exit."""

    wall: float
    cpu: float
    peak_mib: float


def measured(argv: list[str], env: dict[str, str], cwd: str) -> Cost:
    """Run `argv` to its end with its output in files; its wall and CPU time and peak memory.

    `os.wait4` reads the child's own rusage (children it waited for included), which
    `subprocess.run` would discard when it reaps the process.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{argv[0]} failed ({child.returncode}): {err.read()[-2000:].decode(errors='replace')}")
    return Cost(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def hermeslite_prompt(server: ScriptedServer, home: Path) -> Cost:
    """`hermeslite -p hello` with the plain arm's config, to its exit."""
    env = ARMS[0].prepare(home / "home", server)
    return measured(ARMS[0].prompt_argv(), env, str(home))


def llm_prompt(llm: Path, server: ScriptedServer, home: Path) -> Cost:
    """`llm -m bench hello` against the same server, with a model declared the way llm's docs say."""
    user_path = home / "llm-home"
    user_path.mkdir(parents=True, exist_ok=True)
    model = {"model_id": "bench", "model_name": MODEL.removeprefix("openai/"), "api_base": server.base_url}
    (user_path / "extra-openai-models.yaml").write_text(yaml.safe_dump([model]))
    env = {**os.environ, "LLM_USER_PATH": str(user_path), "OPENAI_API_KEY": "sk-bench"}
    return measured([str(llm), "-m", "bench", "hello"], env, str(home))


def versus_llm(llm: Path, runs: int) -> dict[str, list[Cost]]:
    """Both programs `runs` times, alternating, each run in a fresh home."""
    found: dict[str, list[Cost]] = {"hermeslite -p": [], "llm -m": []}
    with ScriptedServer() as server:
        server.responder = lambda body: Reply.text("hi")
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as tmp:
                found["hermeslite -p"].append(hermeslite_prompt(server, Path(tmp)))
            with tempfile.TemporaryDirectory() as tmp:
                found["llm -m"].append(llm_prompt(llm, server, Path(tmp)))
    return found


def versus_table(found: dict[str, list[Cost]]) -> list[str]:
    """A row per program (median and range), then hermeslite's ratio to llm of the medians."""

    def seconds(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} s ({min(values):.2f}–{max(values):.2f})"

    rows = [
        (
            name,
            seconds([c.wall for c in costs]),
            seconds([c.cpu for c in costs]),
            f"{statistics.median(c.peak_mib for c in costs):.0f} MiB",
        )
        for name, costs in found.items()
    ]
    ours, theirs = found["hermeslite -p"], found["llm -m"]
    measures: list[Callable[[Cost], float]] = [lambda c: c.wall, lambda c: c.cpu, lambda c: c.peak_mib]
    ratios = [statistics.median(map(m, ours)) / statistics.median(map(m, theirs)) for m in measures]
    rows.append(("ratio (target ≤ 1.5x)", *(f"{r:.2f}x" for r in ratios)))
    return table(("program", "wall", "CPU (user + sys)", "peak memory"), rows)


def schema_costs(tools: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """(server, tools, schema tokens) for each MCP server among a request's tools."""
    by_server: dict[str, list[dict[str, Any]]] = {}
    for tool in tools:
        name = tool["function"]["name"]
        if name.startswith("mcp__"):
            by_server.setdefault(name.split("__")[1], []).append(tool)
    return [(name, len(schemas), schema_tokens(schemas)) for name, schemas in sorted(by_server.items())]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:,.0f} ms ({min(values) * 1000:,.0f}–{max(values) * 1000:,.0f})"


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def commit() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True)
    return done.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def run(arms: tuple[Arm, ...], runs: int, measure: Callable[[Arm, ScriptedServer], Any]) -> dict[str, list[Any]]:
    """`measure` for every arm, `runs` rounds, the arms alternating within each round."""
    found: dict[str, list[Any]] = {arm.name: [] for arm in arms}
    with ScriptedServer() as server:
        for _ in range(runs):
            for arm in arms:
                found[arm.name].append(measure(arm, server))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds of each measure (median and range reported)")
    parser.add_argument("--llm", type=Path, help="the `llm` program of a venv of its own, for the side-by-side table")
    args = parser.parse_args()
    if args.llm is not None and not args.llm.exists():
        print(f"{args.llm} does not exist: see this script's docstring for installing llm", file=sys.stderr)
        return 1
    if not TIME_SERVER.exists():
        print(f"{TIME_SERVER} is missing: pip install -e '.[dev]' installs mcp-server-time", file=sys.stderr)
        return 1
    frames = run(ARMS, args.runs, first_frame)
    prompts = run(ARMS, args.runs, prompt_run)
    versus = versus_llm(args.llm, args.runs) if args.llm else None
    load = os.getloadavg()[0]
    print(f"hermeslite start-up benchmark · commit {commit()} · {args.runs} runs per arm · load {load:.1f}\n")
    rows = []
    for arm in ARMS:
        mcp_tools = [len(schema_costs(run["tools"])) for run in prompts[arm.name]]
        rows.append(
            (
                arm.name,
                spread(frames[arm.name]),
                spread([r["request"] for r in prompts[arm.name]]),
                spread([r["exit"] for r in prompts[arm.name]]),
                f"{min(mcp_tools)} of {len(arm.config.get('mcp_servers', {}))}",
            )
        )
    header = ("arm", "first frame", "-p: first request", "-p: exit", "servers in the first request")
    print("\n".join(table(header, rows)))
    costs = schema_costs(prompts[ARMS[-1].name][-1]["tools"])
    cost_rows = [(name, str(count), f"{tokens:,}") for name, count, tokens in costs]
    cost_rows.append(("all three", str(sum(c for _, c, _ in costs)), f"{sum(t for _, _, t in costs):,}"))
    print("\nWhat each server's tool schemas add to every request (the meter's estimate):\n")
    print("\n".join(table(("server", "tools", "schema tokens"), cost_rows)))
    if versus is not None:
        print("\n`hermeslite -p hello` and `llm -m bench hello` against the same server, start to exit:\n")
        print("\n".join(versus_table(versus)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
