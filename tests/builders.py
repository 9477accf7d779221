"""Transcript builders for tests and benchmarks: agent-shaped conversations without boilerplate."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hermeslite.context import CompressionConfig, ContextCompressor, Summarize
from hermeslite.context.messages import call_arguments, call_id, strip_private, text_of, tool_calls_of
from hermeslite.context.sanitize import sanitize_tool_pairs

_ids = itertools.count(1)

# A user turn's worth of plain text: ~1,600 chars, ~400 tokens by the chars/4 estimate.
FILLER = "lorem ipsum dolor sit amet " * 60


class Transcript:
    """Fluent builder: Transcript("sys").user("hi").tool("terminal", {...}, "out").assistant("done")."""

    def __init__(self, system: str | None = "You are a helpful agent.") -> None:
        self.messages: list[dict[str, Any]] = []
        if system is not None:
            self.messages.append({"role": "system", "content": system})

    def user(self, content: Any) -> Transcript:
        self.messages.append({"role": "user", "content": content})
        return self

    def assistant(self, content: str | None) -> Transcript:
        self.messages.append({"role": "assistant", "content": content})
        return self

    def tool(self, name: str, args: dict, output: str, text: str | None = None) -> Transcript:
        """One assistant tool call followed by its result."""
        return self.parallel([(name, args, output)], text=text)

    def parallel(self, calls: list[tuple[str, dict, str]], text: str | None = None) -> Transcript:
        self.messages += tool_exchange([f"call_{next(_ids)}" for _ in calls], calls, text)
        return self

    def build(self) -> list[dict[str, Any]]:
        return self.messages


def tool_exchange(ids: list[str], calls: list[tuple[str, dict, str]], text: str | None = None) -> list[dict[str, Any]]:
    """One assistant message making `calls` (name, arguments, output) under `ids`, then a result per call.

    The ids are the caller's, so a benchmark keeps the id format its figures were measured with.
    """
    request = {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a, _) in zip(ids, calls, strict=True)
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": i, "name": n, "content": out}
        for i, (n, _, out) in zip(ids, calls, strict=True)
    ]
    return [request, *results]


def visible_text(messages: list[dict]) -> str:
    """What the model sees: contents and tool-call arguments of the provider payload (private keys stripped)."""
    parts = []
    for msg in strip_private(messages):
        parts.append(text_of(msg.get("content")))
        parts += [call_arguments(call) for call in tool_calls_of(msg)]
    return "\n".join(parts)


def pinned_compressor(summarize: Summarize | None, context_length: int) -> ContextCompressor:
    """A compressor with the default settings and a fixed clock and date, so a run repeats exactly."""
    return ContextCompressor(
        CompressionConfig(),
        context_length=context_length,
        summarize=summarize,
        clock=lambda: 1_000.0,
        today=lambda: "2026-11-22",
    )


def agent_session(turns: int, output_chars: int = 3_000, system: str = "You are a coding agent.") -> list[dict]:
    """A plausible long session: each turn a user ask, two tool calls, an answer."""
    t = Transcript(system)
    for n in range(turns):
        t.user(f"Step {n}: please fix the failing test in module_{n}.py")
        t.tool("read_file", {"path": f"src/module_{n}.py"}, f"line {n}\n" * (output_chars // 8))
        t.tool(
            "terminal",
            {"command": f"pytest tests/test_{n}.py"},
            ("collected 3 items\n" * (output_chars // 18)) + f"[exit code: {n % 2}]",
        )
        t.assistant(f"Fixed module_{n}.py; the test passes now.")
    return t.build()


def assert_valid(messages: list[dict]) -> None:
    """The transcript invariants a provider (and DESIGN.md) demands."""
    assert messages, "empty transcript"
    non_system = [m for m in messages if m.get("role") != "system"]
    assert all(m.get("role") != "system" for m in messages[1:]) or messages[0].get("role") == "system"
    if non_system:
        assert non_system[0]["role"] == "user", f"first non-system message is {non_system[0]['role']}"
    assert sanitize_tool_pairs(messages) == messages, "tool calls and results are not paired"
    for a, b in itertools.pairwise(messages):
        if a["role"] in ("user", "assistant") and a["role"] == b["role"]:
            raise AssertionError(f"two consecutive {a['role']} messages")
    for m in messages:
        for call in tool_calls_of(m):
            json.loads(call["function"]["arguments"])
            assert call_id(call)
