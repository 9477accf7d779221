"""An MCP server's tool as a tool of the registry: `mcp__<server>__<tool>`.

The model sees the server's description and input schema; the registry
checks the arguments against that schema as it does for built-in tools.
A call runs in another program, out of the sandbox's sight, so it is judged
as the terminal's uncontained commands are: it asks until the user allows
that tool for the session, unless the config lists it in `approved_tools`
(or `tools.approval` is allow); headless, it is refused with how to allow it.

The result is capped like other tool output: a longer one is kept whole in the
session archive and the model reads its head and tail with the recall id that
brings it back (tools/spill.py, shared with the terminal and search). A
failure of any kind is an error result, never an exception: the turn goes on.
"""

from __future__ import annotations

import json
from typing import Any

from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools.approval import check_outside_call
from hermeslite.tools.base import ApprovalRequest, ToolContext, ToolResult
from hermeslite.tools.spill import fit_result

from .config import McpServerConfig
from .manager import McpServers
from .names import tool_name
from .status import ToolInfo, Unavailable

SHOWN_ARGUMENTS = 300  # characters of the arguments the approval dialog shows


class McpTool:
    role: ToolRole | None = None

    def __init__(self, server: str, info: ToolInfo, config: McpServerConfig, servers: McpServers) -> None:
        self.server = server
        self.tool = info.name  # the server's own name for it
        self.name = tool_name(server, info.name)
        self.description = info.description or f"The {info.name} tool of the MCP server {server}."
        self._parameters = info.input_schema
        self.read_only = config.read_only(info.name)  # the user listed it in read_only_tools
        # A server runs outside the sandbox and may change the project's files: its calls are snapshotted
        # (file checkpoints) unless the user marked the tool as one that only reads.
        self.writes = not self.read_only
        self.approved = config.approved(info.name)
        self._servers = servers

    @property
    def parameters(self) -> dict[str, Any]:
        return self._parameters

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not self.approved:
            refusal = await check_outside_call(ctx, self._request(args), self._hint())
            if refusal:
                return ToolResult.refusal(refusal)
        try:
            outcome = await self._servers.call_tool(self.server, self.tool, args)
        except Unavailable as exc:
            return ToolResult.error(str(exc))
        text = await fit_result(ctx, self.name, outcome.text)
        if outcome.is_error:
            return ToolResult(f"error: {text}", is_error=True)
        return ToolResult(text, images=tuple(image.part() for image in outcome.images))

    def _request(self, args: dict[str, Any]) -> ApprovalRequest:
        shown = json.dumps(args, ensure_ascii=False)
        if len(shown) > SHOWN_ARGUMENTS:
            shown = shown[: SHOWN_ARGUMENTS - 1] + "…"
        return ApprovalRequest(
            tool=self.name,
            command=f"{self.name} {shown}",
            reason=f"{self.name} is a tool of the MCP server {self.server}",
            scope=f"calls of {self.name}",
        )

    def _hint(self) -> str:
        return (
            f'add "{self.tool}" to mcp_servers.{self.server}.approved_tools in the config file, '
            "or set tools.approval: allow"
        )
