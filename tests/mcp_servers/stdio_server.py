"""A stdio MCP server (the SDK's MCPServer) with a tool for each case the client must handle.

    python stdio_server.py [--tools N] [--stubborn] [--children PIDFILE] [--wait-for PATH]

--tools N adds N generated tools (the start-up benchmark's schemas);
--stubborn makes it keep running after its stdin closes, ignoring SIGTERM
(an MCP server that misbehaves); --children PIDFILE starts two `sleep`
processes, one in its process group and one in a session of its own, and
writes their pids and its own to PIDFILE (what must die with hermeslite);
--wait-for PATH makes it start serving only once PATH exists (a server that
gets ready when the test says so).
"""

from __future__ import annotations

import argparse
import base64
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ImageContent, TextContent

# A 1x1 PNG: a valid image of the smallest size.
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d605bb0000000049454e44ae426082"
    )
).decode()

server = MCPServer("test-tools")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool()
def touch(path: str) -> str:
    """Create an empty file at path (a tool with an effect the tests can see on disk)."""
    Path(path).touch()
    return f"created {path}"


@server.tool()
def fail(why: str) -> CallToolResult:
    """Report a failure the way a tool does: isError with a message."""
    return CallToolResult(content=[TextContent(text=f"could not do it: {why}")], is_error=True)


@server.tool()
def big(chars: int) -> str:
    """Return `chars` characters: lines that say where they are, then a marker at the very end."""
    line = "filler line of a very large result 0123456789\n"
    body = line * (chars // len(line))
    return "BEGIN-OF-BIG\n" + body[: max(0, chars - 40)] + "\nEND-OF-BIG unique-tail-marker"


@server.tool()
def picture() -> CallToolResult:
    """A 1x1 PNG with a caption."""
    return CallToolResult(
        content=[TextContent(text="a one-pixel picture"), ImageContent(data=PIXEL, mime_type="image/png")]
    )


@server.tool()
def structured() -> CallToolResult:
    """Structured content and no text blocks."""
    return CallToolResult(content=[], structured_content={"temperature": 21.5, "unit": "celsius"})


@server.tool()
def slow(seconds: float, mark: str = "") -> str:
    """Sleep, then answer; with `mark`, create that file first (the test knows the call has arrived)."""
    if mark:
        Path(mark).touch()
    time.sleep(seconds)
    return "woke up"


@server.tool()
def crash() -> str:
    """Exit at once, as a server that crashes mid-session."""
    sys.stderr.write("crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.prompt()
def review(path: str, focus: str = "bugs") -> str:
    """Ask for a review of one file."""
    return f"Please review {path}, looking for {focus}."


def add_generated(count: int) -> None:
    for n in range(count):

        def tool(query: str, limit: int = 10, n: int = n) -> str:
            return f"result {n} for {query} (limit {limit})"

        server.add_tool(tool, name=f"lookup_{n}", description=f"Look up records of kind {n} matching a query.")


def start_children(pidfile: str) -> None:
    grouped = subprocess.Popen(["sleep", "3600"])
    alone = subprocess.Popen(["sleep", "3600"], start_new_session=True)
    Path(pidfile).write_text(f"{os.getpid()} {grouped.pid} {alone.pid}\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--stubborn", action="store_true")
    parser.add_argument("--children")
    parser.add_argument("--wait-for")
    args = parser.parse_args()
    while args.wait_for and not Path(args.wait_for).exists():
        time.sleep(0.05)
    add_generated(args.tools)
    if args.children:
        start_children(args.children)
    if args.stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server.run()
    if args.stubborn:
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
