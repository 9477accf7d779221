"""A stdio MCP server (the SDK's low-level Server) that lists a good tool and one whose input schema is
not valid JSON Schema, which the client must not offer (a provider refuses every request that carries it).
The SDK itself refuses to list a schema that is not an object schema, so that case cannot be served."""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(name="good", description="Answers.", input_schema={"type": "object", "properties": {}}),
    types.Tool(
        name="bad_schema",
        description="Its schema names a type JSON Schema does not have.",
        input_schema={"type": "object", "properties": {"x": {"type": "nonsense"}}},
    ),
]


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=f"{params.name} answered")])


server = Server("broken", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
