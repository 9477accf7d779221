"""Running the tool calls of a reply, and the user's own `!command`, for the agent.

Each call is announced before it starts and after it ends, so a front end can
show it running; its output is redacted before anything keeps it, because it
is stored and re-sent with every request. The calls of one reply run at once,
but a bounded number: each may start a process, and a model may ask for 150.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import replace
from typing import Any

from hermeslite.context.messages import EXIT_CODE_KEY
from hermeslite.context.redact import redact_secrets
from hermeslite.tools.base import ToolResult

from . import events as ev
from .deps import AgentDeps

MAX_PARALLEL_TOOLS = 8  # tool calls of one reply that run at once; a model may ask for 150


class ToolRunner:
    """Runs calls through the agent's registry and context, reporting each as events."""

    def __init__(self, deps: AgentDeps, emit: ev.Subscriber) -> None:
        self.deps = deps
        self.emit = emit

    async def run_all(self, calls: list[dict[str, Any]]) -> list[ToolResult]:
        """Run the calls of one assistant message concurrently, at most MAX_PARALLEL_TOOLS at
        a time; the results come back in call order."""
        slots = asyncio.Semaphore(MAX_PARALLEL_TOOLS)

        async def run(call: dict[str, Any]) -> ToolResult:
            async with slots:
                return await self.run(call)

        return list(await asyncio.gather(*(run(call) for call in calls)))

    async def run(self, call: dict[str, Any], *, by_user: bool = False) -> ToolResult:
        name, arguments = tool_call_name(call), (call.get("function") or {}).get("arguments") or "{}"
        self.emit(ev.ToolStarted(call_id=call["id"], name=name, arguments=arguments, by_user=by_user))

        async def execute() -> ToolResult:
            result = await self.deps.registry.execute(name, arguments, self.deps.tool_ctx)
            # Tool output is stored and re-sent with every request: a key that `env` or `cat .env` printed stops here.
            return replace(result, content=redact_secrets(result.content))

        # Hooks watch the model's calls; the user's own `!command` runs without them. A tool that can
        # write is snapshotted around both (file checkpoints): what a hook's formatter changes is the call's.
        hooks, ctx = self.deps.hooks, self.deps.tool_ctx
        writes = self.deps.registry.writes(name)
        if writes:
            await self.deps.checkpoints.before_write()
        try:
            result = await execute() if by_user else await hooks.around_tool(call["id"], name, arguments, ctx, execute)
        finally:
            if writes:
                await self.deps.checkpoints.after_write(name)
        self.emit(
            ev.ToolFinished(
                call_id=call["id"],
                name=name,
                content=result.content,
                is_error=result.is_error,
                exit_code=result.exit_code,
            )
        )
        return result


def tool_result_message(call: dict[str, Any], result: ToolResult) -> dict[str, Any]:
    """The transcript's answer to `call`: the text for the model, the exit code as data."""
    return {
        "role": "tool",
        "tool_call_id": call["id"],
        "name": tool_call_name(call),
        "content": result.content,
        EXIT_CODE_KEY: result.exit_code,
    }


def user_command_call(command: str) -> dict[str, Any]:
    """A terminal call for the user's `!command`, so it runs exactly as a model's call would."""
    return {
        "id": f"user-{secrets.token_hex(4)}",
        "type": "function",
        "function": {"name": "terminal", "arguments": json.dumps({"command": command})},
    }


def tool_call_name(call: dict[str, Any]) -> str:
    return str((call.get("function") or {}).get("name") or "")
