"""Issue 19's drift case through the compressor: ten forced compactions at a 32k window, with a summarizer
that returns nothing and one that returns a valid checkpoint holding nothing of the session. A test run
that fails and is never fixed stays visible with its error line after every one; one fixed in the first
round by a rerun spelled differently is gone after every one; three tests a round fail and pass again."""

from __future__ import annotations

import pytest

from ..builders import pinned_compressor, tool_exchange, visible_text
from ..summary_requests import checkpoint

OPEN = "pytest -q tests/test_retry.py"
OPEN_ERROR = "E   AssertionError: expected 3 retries after a 503, got 5"
FIXED = "pytest tests/http/test_pool.py"
FIXED_ERROR = "E   AssertionError: pool size 0 != 4"


def failing(error: str) -> str:
    return f"FAILED\n{error}\n1 failed, 6 passed in 0.21s\n[exit code: 1]"


class Session:
    def __init__(self) -> None:
        self.n = 0
        self.messages: list[dict] = [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "From now on always run the tests with -q."},  # the head kept verbatim
            {"role": "assistant", "content": "Understood."},
            {"role": "user", "content": "Run the retry and pool tests."},
        ]
        self.run(OPEN, failing(OPEN_ERROR))
        self.run(FIXED, failing(FIXED_ERROR))
        self.messages.append({"role": "assistant", "content": "Both fail."})

    def run(self, command: str, output: str) -> None:
        self.n += 1
        self.messages += tool_exchange([f"call_{self.n:05d}"], [("terminal", {"command": command}, output)])

    def round(self, round_no: int) -> None:
        for n in range(20):
            path = f"src/http/mod_{round_no:02d}_{n:02d}.py"
            self.messages.append({"role": "user", "content": f"Please read {path} and check its retry handling. " * 3})
            self.n += 1
            code = "def handler(request):\n    return pool.send(request)\n" * 25
            self.messages += tool_exchange([f"call_{self.n:05d}"], [("read_file", {"path": path}, code)])
            if n < 3:
                test = f"tests/unit/test_r{round_no:02d}_{n}.py"
                self.run(f"pytest {test} -x", failing(f"E   AssertionError: round {round_no} case {n}"))
                self.run(f"pytest -q {test}", "7 passed in 0.2s\n[exit code: 0]")
            if round_no == 1 and n == 10:
                self.run("pytest -q tests/http/test_pool.py", "7 passed in 0.2s\n[exit code: 0]")
            self.messages.append({"role": "assistant", "content": f"{path} looks right."})


async def _empty(prompt: str, model: str | None) -> str:
    return ""


async def _lossy(prompt: str, model: str | None) -> str:
    return checkpoint()


def _failed_line(text: str, command: str) -> bool:
    return any(f"`{command}`" in line and "exit 1" in line for line in text.splitlines())


@pytest.mark.parametrize("summarize", [_empty, _lossy], ids=["empty", "lossy"])
async def test_an_open_failure_outlives_ten_compactions_and_a_fixed_one_goes(summarize):
    compressor = pinned_compressor(summarize, 32_000)
    session = Session()
    for round_no in range(1, 11):
        session.round(round_no)
        result = await compressor.compress(session.messages, force=True)
        assert result.changed
        session.messages = result.messages
        text = visible_text(session.messages)
        assert _failed_line(text, OPEN) and OPEN_ERROR in text, f"the open failure is gone after {round_no}"
        assert not _failed_line(text, FIXED) and FIXED_ERROR not in text, f"the fixed one is back after {round_no}"
