"""The one door through which the agent runs tools.

Models send unknown tool names, broken JSON, missing or mistyped arguments,
and tools hit errors of their own. Every such failure comes back as a result
starting with `error: ` that tells the model what to fix, never as an
exception: the turn goes on and the model gets a chance to correct itself.
Small models often send numbers and booleans as strings, so those are
converted rather than refused.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Iterable
from typing import Any

from hermeslite.context.tool_roles import ToolRole, ToolRoles
from hermeslite.tools.base import Tool, ToolContext, ToolResult, function_schema
from hermeslite.tools.files import PatchTool, ReadFileTool, WriteFileTool
from hermeslite.tools.search import SearchFilesTool
from hermeslite.tools.terminal import TerminalTool

_INTEGER = re.compile(r"^\s*-?\d+\s*$")


class ToolRegistry:
    """The built-in tools, registered once, then the offered ones (MCP servers' tools), which the
    agent replaces between turns; `generation` counts those changes."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._offered: dict[str, Tool] = {}
        self.generation = 0
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add a tool; a second tool with the same name is a programming error, not a silent override."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def offer(self, tools: Iterable[Tool]) -> None:
        """Replace the offered tools with `tools`, kept after the built-in ones in name order, so
        the schemas a request carries (a prefix the provider caches) depend only on which are
        offered. A name a built-in tool has is left out."""
        offered = {tool.name: tool for tool in sorted(tools, key=lambda t: t.name) if tool.name not in self._tools}
        if [function_schema(t) for t in offered.values()] != [function_schema(t) for t in self._offered.values()]:
            self.generation += 1
        self._offered = offered

    @property
    def offered(self) -> list[Tool]:
        return list(self._offered.values())

    @property
    def _all(self) -> dict[str, Tool]:
        return {**self._tools, **self._offered}

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name) or self._offered.get(name)

    def names(self) -> list[str]:
        return list(self._all)

    def writes(self, name: str) -> bool:
        """Whether the tool called `name` declares it can change files (an unknown name cannot run). An
        offered tool (an MCP server's) counts too: it runs outside the sandbox and may write the project."""
        tool = self.get(name)
        return tool is not None and tool.writes

    def tool_roles(self) -> ToolRoles:
        """The table the compaction engine is handed: each registered tool's declared role."""
        return ToolRoles({name: tool.role for name, tool in self._tools.items() if tool.role is not None})

    def plan_withheld(self) -> set[str]:
        """The tools plan mode does not offer: every one that declares it can change files (an MCP tool
        not marked read-only included), but the terminal, whose commands plan mode confines."""
        return {name for name, tool in self._all.items() if tool.writes and tool.role is not ToolRole.RUNS_COMMANDS}

    def schemas(self, only: set[str] | None = None, without: set[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI function-tool definitions, built-in tools in registration order then the offered
        ones; `only` narrows them (e.g. memory flush), `without` leaves some out (plan mode)."""
        return [
            function_schema(tool)
            for name, tool in self._all.items()
            if (only is None or name in only) and (without is None or name not in without)
        ]

    async def execute(self, name: str, arguments: str | dict[str, Any] | None, ctx: ToolContext) -> ToolResult:
        """Run one tool call; only cancellation escapes, every other failure is an error result."""
        tool = self.get(name)
        if tool is None:
            return ToolResult.error(f"unknown tool {name!r}; available tools: {', '.join(self._all) or 'none'}")
        args = _parse(name, arguments)
        if isinstance(args, ToolResult):
            return args
        checked = validate(args, tool.parameters)
        if isinstance(checked, str):
            return ToolResult.error(f"invalid arguments for {name}: {checked}; expected {signature(tool.parameters)}")
        try:
            result = await tool.run(checked, ctx)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug must not end the user's turn
            return ToolResult.error(f"{type(exc).__name__}: {exc}")
        if isinstance(result, str):
            return ToolResult(result)
        if not isinstance(result, ToolResult):
            return ToolResult.error(f"tool {name} returned {type(result).__name__} instead of a result")
        return result


def _parse(name: str, arguments: str | dict[str, Any] | None) -> dict[str, Any] | ToolResult:
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}  # some providers send "" for a call without arguments
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return ToolResult.error(f"arguments for {name} are not valid JSON ({exc}); send one JSON object")
    if not isinstance(arguments, dict):
        return ToolResult.error(f"arguments for {name} must be a JSON object, got {_json_kind(arguments)}")
    return arguments


def _json_kind(value: Any) -> str:
    kinds = (
        (bool, "a boolean"),
        (str, "a string"),
        ((int, float), "a number"),
        (list, "an array"),
        (dict, "an object"),
    )
    return next((word for kind, word in kinds if isinstance(value, kind)), "null")


def validate(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any] | str:
    """Arguments checked against the schema's `required` and property `type`s, or what is wrong.

    A null optional argument counts as absent. Unknown keys pass through:
    refusing them would only make the model retry a call that would work.
    """
    properties = schema.get("properties", {})
    out = {key: value for key, value in args.items() if not (value is None and key in properties)}
    missing = [key for key in schema.get("required", []) if key not in out]
    if missing:
        return "missing required argument " + ", ".join(repr(key) for key in missing)
    for key, value in list(out.items()):
        kinds = properties.get(key, {}).get("type")
        if kinds is None:
            continue
        converted = _convert(value, [kinds] if isinstance(kinds, str) else list(kinds))
        if converted is _BAD:
            shown = json.dumps(value, default=str)[:60]
            return f"{key!r} must be {_kinds(kinds)}, got {_json_kind(value)} {shown}"
        out[key] = converted
    return out


_BAD = object()


def _kinds(kinds: str | list[str]) -> str:
    return kinds if isinstance(kinds, str) else " or ".join(kinds)


def _convert(value: Any, kinds: list[str]) -> Any:
    for kind in kinds:
        if kind == "string" and isinstance(value, str):
            return value
        if kind == "boolean":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                return value.strip().lower() == "true"
        if kind == "integer" and not isinstance(value, bool):
            if isinstance(value, int):
                return value
            if isinstance(value, float) and value.is_integer():
                return int(value)
            if isinstance(value, str) and _INTEGER.match(value):
                return int(value)
        if kind == "number" and not isinstance(value, bool):
            if isinstance(value, (int, float)):
                return value
            number = _float(value) if isinstance(value, str) else None
            if number is not None:
                return number
        if (kind, type(value)) in (("array", list), ("object", dict)) or (kind == "null" and value is None):
            return value
    return _BAD


def _float(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def signature(schema: dict[str, Any]) -> str:
    """`{"command": string, "timeout"?: number}`: the shape the model should send."""
    required = set(schema.get("required", []))
    parts = [
        f'"{key}"{"" if key in required else "?"}: {_kinds(spec.get("type", "any"))}'
        for key, spec in schema.get("properties", {}).items()
    ]
    return "{" + ", ".join(parts) + "}"


def default_registry(extra_tools: Iterable[Tool] = ()) -> ToolRegistry:
    """The built-in tools plus any others (memory, todo, recall) the caller constructs."""
    return ToolRegistry([TerminalTool(), ReadFileTool(), WriteFileTool(), PatchTool(), SearchFilesTool(), *extra_tools])
