"""A realistic agent transcript for `compress_bench`: shell sessions on a repository, seeded.

Uniform filler flatters an engine: every redaction rule, error-line scan and
instruction check finds nothing to do. Real sessions are made of what this
generator writes: users asking in their own words (some giving standing
instructions, some pasting a traceback or a config line), test runs that fail
with a traceback and pass later, `git diff` and `git status`, long file reads
with line numbers, patches answered with a diff, searches, installs, listings,
and now and then a key a command printed. One `turn()` is one user request and
the agent's work on it: 1,000 turns make about 4,800 messages and 1.5M tokens.
"""

from __future__ import annotations

import json
import random

from hermeslite.context.messages import EXIT_CODE_KEY

MODULES = (
    "retry_policy", "billing/invoice", "billing/refunds", "auth/session", "auth/tokens", "http/client",
    "http/middleware", "db/migrations", "db/pool", "cache/lru", "cli/main", "config/loader", "workers/queue",
    "search/index", "api/routes", "api/schemas", "utils/timefmt", "export/csv_writer",
)  # fmt: skip
VERBS = ("fix", "add", "refactor", "rename", "speed up", "document", "test", "clean up", "debug", "review")
THINGS = (
    "the retry backoff", "invoice rounding", "the session expiry", "token refresh", "the connection pool",
    "the CSV export", "pagination in the search API", "the config loader's env overrides", "the migration order",
    "the LRU eviction", "timezone handling", "the worker shutdown", "error messages in the CLI",
)  # fmt: skip
INSTRUCTIONS = (
    "From now on always run ruff before you commit, and never touch vendor/.",
    "Please always use tabs for indentation in the Makefile, never spaces.",
    "Don't change the public API of billing/invoice.py without asking me first.",
    "Always add a test for every bug you fix, and keep each commit small.",
    "Never run the migrations against the staging database.",
    "Use pathlib instead of os.path from now on.",
)
IDENTS = ("delay", "attempt", "policy", "invoice", "amount", "cents", "session", "expires_at", "token", "pool",
          "conn", "rows", "writer", "cursor", "page", "limit", "offset", "config", "env", "queue", "worker", "key")  # fmt: skip
ERRORS = (
    ("AssertionError", "assert {a} == {b}"),
    ("KeyError", "'{w}'"),
    ("TypeError", "unsupported operand type(s) for +: 'int' and 'NoneType'"),
    ("ValueError", "invalid literal for int() with base 10: '{w}'"),
    ("AttributeError", "'NoneType' object has no attribute '{w}'"),
    ("ZeroDivisionError", "division by zero"),
)


def _path(module: str, test: bool = False) -> str:
    head, _, name = module.rpartition("/")
    if test:
        return f"tests/test_{name}.py"
    return f"src/app/{head + '/' if head else ''}{name}.py"


class AgentSessions:
    """Writes one transcript turn by turn; every random choice comes from `rng`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.calls = 0
        self.failing: dict[str, str] = {}  # test file -> the assertion it fails with, until fixed
        self.stats = {"turns": 0, "tool_results": 0, "failed_runs": 0, "file_reads": 0, "patches": 0}

    def ident(self) -> str:
        return self.rng.choice(IDENTS)

    def code_lines(self, n: int) -> list[str]:
        rng, out, indent = self.rng, [], 0
        for _ in range(n):
            kind = rng.random()
            if kind < 0.08:
                indent = 0
                line = f"def {self.ident()}_{rng.choice(IDENTS)}({self.ident()}, {self.ident()}=None):"
            elif kind < 0.12:
                indent = 0
                line = f"class {self.ident().title()}{rng.choice(('Policy', 'Error', 'Store', 'Client'))}:"
            elif kind < 0.2:
                line = f'    """{rng.choice(THINGS).capitalize()}: see {rng.choice(MODULES)}."""'
            elif kind < 0.3:
                line = f"    if {self.ident()} is None or {self.ident()} > {rng.randint(0, 500)}:"
            elif kind < 0.35:
                line = f"        raise {rng.choice(ERRORS)[0]}(f'bad {{{self.ident()}!r}}')"
            elif kind < 0.4:
                line = ""
            else:
                line = f"{'    ' * (1 + indent % 2)}{self.ident()} = {self.ident()}.{self.ident()}({self.ident()}, {rng.randint(1, 99)})"
                indent += 1
            out.append(line)
        return out

    # --- tool outputs -------------------------------------------------------------------------

    def pytest_run(self, target: str) -> tuple[str, int]:
        rng = self.rng
        fails = target in self.failing and rng.random() < 0.7
        n = rng.randint(8, 120)
        lines = [
            "=" * 29 + " test session starts " + "=" * 30,
            "platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0",
            "rootdir: /home/dev/work/shop",
            f"collected {n} items",
            "",
        ]
        for f in sorted({target, *(_path(rng.choice(MODULES), True) for _ in range(rng.randint(0, 6)))}):
            dots = "".join("F" if fails and f == target and k == 2 else "." for k in range(rng.randint(3, 30)))
            lines.append(f"{f} {dots:<50} [{rng.randint(1, 100):>3}%]")
        if fails:
            name, message = self.failing[target]
            test = f"test_{self.ident()}_{self.ident()}"
            lines += ["", "=" * 35 + " FAILURES " + "=" * 35, f"{'_' * 30} {test} {'_' * 30}", ""]
            lines += [f"    {line}" for line in self.code_lines(rng.randint(4, 14))]
            lines += [
                f">       assert {self.ident()}.{self.ident()}() == {rng.randint(1, 60)}",
                f"E       {name}: {message}",
            ]
            lines += ["", f"{target}:{rng.randint(10, 400)}: {name}"]
            lines += ["=" * 27 + " short test summary info " + "=" * 28, f"FAILED {target}::{test} - {name}: {message}"]
            lines.append(f"{'=' * 20} 1 failed, {n - 1} passed in {rng.uniform(0.2, 9):.2f}s {'=' * 20}")
            self.stats["failed_runs"] += 1
            return "\n".join(lines), 1
        self.failing.pop(target, None)
        lines.append(f"{'=' * 25} {n} passed in {rng.uniform(0.2, 9):.2f}s {'=' * 25}")
        return "\n".join(lines), 0

    def diff(self, path: str) -> str:
        rng = self.rng
        out = [f"diff --git a/{path} b/{path}", f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644"]
        out += [f"--- a/{path}", f"+++ b/{path}"]
        for _ in range(rng.randint(1, 5)):
            at = rng.randint(1, 600)
            out.append(f"@@ -{at},7 +{at},{rng.randint(6, 12)} @@ def {self.ident()}_{self.ident()}(")
            out += [f" {line}" for line in self.code_lines(3)]
            out += [f"-{line}" for line in self.code_lines(rng.randint(1, 4))]
            out += [f"+{line}" for line in self.code_lines(rng.randint(1, 6))]
            out += [f" {line}" for line in self.code_lines(3)]
        return "\n".join(out)

    def listing(self, folder: str) -> str:
        rng = self.rng
        rows = [f"total {rng.randint(8, 400)}"]
        for _ in range(rng.randint(4, 30)):
            name = f"{self.ident()}_{self.ident()}{rng.choice(('.py', '.py', '.toml', '.md', ''))}"
            kind = "d" if not name.count(".") else "-"
            rows.append(
                f"{kind}rw-r--r--  1 dev dev {rng.randint(0, 90_000):>6} Nov {rng.randint(1, 28):>2} "
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {name}"
            )
        return f"{folder}:\n" + "\n".join(rows)

    def command(self, user_text: str) -> tuple[str, str, int]:
        """A terminal command, its output and exit code."""
        rng = self.rng
        module = rng.choice(MODULES)
        pick = rng.random()
        if pick < 0.35:
            target = _path(module, True)
            if target not in self.failing and rng.random() < 0.25:
                name, message = rng.choice(ERRORS)
                self.failing[target] = (
                    name,
                    message.format(a=rng.randint(1, 99), b=rng.randint(1, 99), w=self.ident()),
                )
            out, code = self.pytest_run(target)
            return rng.choice((f"pytest -q {target}", f"python -m pytest {target} -x", f"pytest {target}")), out, code
        if pick < 0.5:
            files = [_path(rng.choice(MODULES)) for _ in range(rng.randint(1, 3))]
            return "git diff", "\n".join(self.diff(p) for p in files), 0
        if pick < 0.58:
            rows = [f"On branch fix/{self.ident()}-{self.ident()}", "Changes not staged for commit:"]
            rows += [f"\tmodified:   {_path(rng.choice(MODULES))}" for _ in range(rng.randint(1, 6))]
            return "git status", "\n".join(rows), 0
        if pick < 0.68:
            folder = _path(module).rsplit("/", 1)[0]
            return f"ls -la {folder}", self.listing(folder), 0
        if pick < 0.78:
            word = self.ident()
            hits = [
                f"{_path(rng.choice(MODULES))}:{rng.randint(1, 700)}:    {line.strip()}"
                for line in self.code_lines(rng.randint(0, 40))
                if line.strip()
            ]
            return f"grep -rn '{word}' src/", "\n".join(hits), 0 if hits else 1
        if pick < 0.84:
            package = rng.choice(("httpx", "orjson", "pydantic", "sqlalchemy", "rich", "tenacity"))
            version = f"{rng.randint(0, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
            out = f"Collecting {package}\n  Downloading {package}-{version}-py3-none-any.whl (120 kB)\n"
            return f"pip install {package}", out + f"Successfully installed {package}-{version}", 0
        if pick < 0.9:
            errors = [
                f"{_path(rng.choice(MODULES))}:{rng.randint(1, 500)}:{rng.randint(1, 80)}: error: "
                f'Incompatible types in assignment (expression has type "{rng.choice(("str", "int | None"))}", '
                f'variable has type "int")  [assignment]'
                for _ in range(rng.randint(0, 6))
            ]
            tail = f"Found {len(errors)} errors in {len(errors)} files" if errors else "Success: no issues found"
            return "mypy src/", "\n".join([*errors, tail]), 1 if errors else 0
        if pick < 0.95:
            env = [f"{k}={v}" for k, v in (("APP_ENV", "dev"), ("DB_HOST", "localhost"), ("LOG_LEVEL", "debug"))]
            if rng.random() < 0.3:
                env.append(f"STRIPE_API_KEY=sk_live_{rng.getrandbits(128):032x}")
            return "cat .env", "\n".join(env), 0
        out = "\n".join(
            f"{rng.uniform(0, 9):.3f} {rng.choice(('GET', 'POST'))} /api/{self.ident()} {rng.choice((200, 200, 404, 500))}"
            for _ in range(rng.randint(20, 200))
        )
        return "tail -n 200 logs/app.log", out, 0

    # --- messages ------------------------------------------------------------------------------

    def call(self, user_text: str) -> tuple[str, dict, str, int | None]:
        rng = self.rng
        pick = rng.random()
        if pick < 0.45:
            command, out, code = self.command(user_text)
            return "terminal", {"command": command}, f"{out}\n[exit code: {code}]", code
        module = rng.choice(MODULES)
        if pick < 0.72:
            self.stats["file_reads"] += 1
            start = rng.choice((1, 1, rng.randint(1, 400)))
            n = int(rng.lognormvariate(4.8, 0.9))  # median ~120 lines, some reads of a thousand
            body = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(self.code_lines(n), start))
            return "read_file", {"path": _path(module, rng.random() < 0.3), "offset": start}, body, None
        if pick < 0.86:
            self.stats["patches"] += 1
            path = _path(module)
            old, new = self.code_lines(rng.randint(1, 6)), self.code_lines(rng.randint(1, 8))
            args = {"path": path, "old_string": "\n".join(old), "new_string": "\n".join(new)}
            return "patch", args, self.diff(path), None
        if pick < 0.93:
            path = _path(module, rng.random() < 0.5)
            content = "\n".join(self.code_lines(rng.randint(20, 300)))
            return "write_file", {"path": path, "content": content}, f"Wrote {len(content)} bytes to {path}", None
        word = self.ident()
        hits = "\n".join(
            f"{_path(rng.choice(MODULES))}:{rng.randint(1, 900)}: {word} = {self.ident()}"
            for _ in range(rng.randint(1, 30))
        )
        return "search_files", {"pattern": word, "path": "src"}, hits, None

    def tool_round(self, user_text: str) -> list[dict]:
        n = 1 if self.rng.random() > 0.1 else self.rng.choice((2, 3))
        calls = [self.call(user_text) for _ in range(n)]
        ids = []
        for _ in calls:
            self.calls += 1
            ids.append(f"toolu_{self.calls:08d}")
        text = "Let me look at that." if self.rng.random() < 0.3 else None
        request = {
            "role": "assistant",
            "content": text,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args, _, _) in zip(ids, calls, strict=True)
            ],
        }
        results = [
            {"role": "tool", "tool_call_id": i, "name": name, "content": out, EXIT_CODE_KEY: code}
            for i, (name, _, out, code) in zip(ids, calls, strict=True)
        ]
        self.stats["tool_results"] += n
        return [request, *results]

    def user(self) -> str:
        rng = self.rng
        pick = rng.random()
        module = rng.choice(MODULES)
        ask = f"Can you {rng.choice(VERBS)} {rng.choice(THINGS)} in {_path(module)}?"
        if pick < 0.05:
            return rng.choice(INSTRUCTIONS) + " " + ask
        if pick < 0.15:
            name, message = rng.choice(ERRORS)
            trace = "\n".join(
                f'  File "/home/dev/work/shop/{_path(rng.choice(MODULES))}", line {rng.randint(1, 500)}, in {self.ident()}'
                for _ in range(rng.randint(2, 8))
            )
            message = message.format(a=1, b=2, w=self.ident())
            return f"I get this when I run the app:\n\nTraceback (most recent call last):\n{trace}\n{name}: {message}\n\n{ask}"
        if pick < 0.2:
            return f"{ask} The staging DSN is postgres://app:{rng.getrandbits(64):016x}@db.internal:5432/shop"
        if pick < 0.5:
            return ask + " " + " ".join(rng.choice(THINGS) for _ in range(rng.randint(2, 12)))
        return ask

    def answer(self) -> dict:
        rng = self.rng
        parts = [
            f"I {rng.choice(('changed', 'looked at', 'updated', 'checked'))} {_path(rng.choice(MODULES))}: "
            f"{rng.choice(THINGS)} now handles {self.ident()} before {self.ident()}."
            for _ in range(rng.randint(1, 5))
        ]
        if rng.random() < 0.3:
            parts.append("```python\n" + "\n".join(self.code_lines(rng.randint(3, 20))) + "\n```")
        return {"role": "assistant", "content": "\n\n".join(parts)}

    def turn(self) -> list[dict]:
        text = self.user()
        msgs: list[dict] = [{"role": "user", "content": text}]
        for _ in range(self.rng.choice((0, 0, 1, 1, 1, 2, 2, 3))):
            msgs += self.tool_round(text)
        msgs.append(self.answer())
        self.stats["turns"] += 1
        return msgs

    def session(self, turns: int) -> list[dict]:
        """`turns` turns after a system prompt, then the next request (compaction runs before it is sent)."""
        msgs: list[dict] = [
            {"role": "system", "content": "You are a coding agent working in a git repository at /home/dev/work/shop."}
        ]
        for _ in range(turns):
            msgs += self.turn()
        msgs.append({"role": "user", "content": "Run the whole test suite again and tell me what still fails."})
        return msgs
