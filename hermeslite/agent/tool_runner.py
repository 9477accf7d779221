"""Running the tool calls of a reply, and the user's own `!command`, for the agent.

Each call is announced before it starts and after it ends, so a front end can
show it running; its output is redacted before anything keeps it, because it
is stored and re-sent with every request. The calls of one reply run at once,
but a bounded number: each may start a process, and a model may ask for 150.

What the user's hooks add after a tool's output is the user's configuration
speaking, not the tool: the result message records it as its trusted suffix,
so the request puts it after the tool output's envelope (`context.untrusted`).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import replace
from typing import Any

from hermeslite.context.messages import EXIT_CODE_KEY
from hermeslite.context.redact import redact_secrets
from hermeslite.context.untrusted import TRUSTED_SUFFIX_KEY
from hermeslite.tools.base import ToolResult

from . import events as ev
from .deps import AgentDeps

MAX_PARALLEL_TOOLS = 8  # tool calls of one reply that run at once; a model may ask for 150


class ToolRunner:
    """Runs calls through the agent's registry and context, reporting each as events."""

    def __init__(self, deps: AgentDeps, emit: ev.Subscriber) -> None:
        self.deps = deps
        self.emit = emit
        self._hook_notes: dict[str, str] = {}  # call id -> what hooks appended to its output

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

        output: list[str] = []

        async def execute() -> ToolResult:
            result = await self.deps.registry.execute(name, arguments, self.deps.tool_ctx)
            # Tool output is stored and re-sent with every request: a key that `env` or `cat .env` printed stops here.
            output.append(redact_secrets(result.content))
            return replace(result, content=output[0])

        # Hooks watch the model's calls; the user's own `!command` runs without them. A tool that can
        # write is snapshotted around both (file checkpoints): what a hook's formatter changes is the call's.
        hooks, ctx = self.deps.hooks, self.deps.tool_ctx
        if name in (self.deps.mode.withheld(self.deps.registry) or ()):
            return self._finish(call, ToolResult.refusal(f"error: {withheld_reason(name)}"))
        writes = self.deps.registry.writes(name)
        if writes:
            await self.deps.checkpoints.before_write()
        try:
            result = await execute() if by_user else await hooks.around_tool(call["id"], name, arguments, ctx, execute)
        finally:
            if writes:
                await self.deps.checkpoints.after_write(name)
        if output and len(result.content) > len(output[0]) and result.content.startswith(output[0]):
            self._hook_notes[call["id"]] = result.content[len(output[0]) :]
        return self._finish(call, result)

    def _finish(self, call: dict[str, Any], result: ToolResult) -> ToolResult:
        self.emit(
            ev.ToolFinished(
                call_id=call["id"],
                name=tool_call_name(call),
                content=result.content,
                is_error=result.is_error,
                exit_code=result.exit_code,
                diff=result.diff,
                refused=result.refused,
            )
        )
        if tool_call_name(call) == "todo" and not result.is_error:
            self.emit(ev.TodosChanged(ev.TodoEntry.listing(self.deps.todos.items)))
        return result

    def result_message(self, call: dict[str, Any], result: ToolResult, *, images: bool = False) -> dict[str, Any]:
        """The transcript's answer to `call`: the text for the model, the exit code as data, and what
        hooks appended to the text, if they did. A result's images go with the text as image parts
        when the model takes `images` in tool results; otherwise the text says they were left out."""
        content: str | list[dict[str, Any]] = result.content
        if result.images and images:
            content = [{"type": "text", "text": result.content}, *result.images]
        elif result.images:
            count = len(result.images)
            content = (
                f"{result.content}\n[{count} image{'s' if count != 1 else ''} not shown: "
                "this model takes no images in tool results]"
            )
        message: dict[str, Any] = {
            "role": "tool",
            "tool_call_id": call["id"],
            "name": tool_call_name(call),
            "content": content,
            EXIT_CODE_KEY: result.exit_code,
        }
        notes = self._hook_notes.pop(call["id"], None)
        if notes:
            message[TRUSTED_SUFFIX_KEY] = notes
        return message


def user_command_call(command: str) -> dict[str, Any]:
    """A terminal call for the user's `!command`, so it runs exactly as a model's call would."""
    return {
        "id": f"user-{secrets.token_hex(4)}",
        "type": "function",
        "function": {"name": "terminal", "arguments": json.dumps({"command": command})},
    }


def withheld_reason(name: str) -> str:
    """What the model reads when it calls a tool plan mode does not offer."""
    return (
        f"{name} is not available in plan mode: nothing may be changed until the user approves a plan. "
        "Do not retry it; describe the change in your plan instead"
    )


def tool_call_name(call: dict[str, Any]) -> str:
    return str((call.get("function") or {}).get("name") or "")
