"""A streamable HTTP MCP server (the SDK's MCPServer, served by uvicorn) on 127.0.0.1, in a thread.

    with HttpMcpServer(token="s3cret") as server:   # requests without `Authorization: Bearer s3cret` get 401
        server.url                                  # http://127.0.0.1:PORT/mcp
        server.fail_with = 500                      # every request from now on gets this status

The token check and the forced status sit in front of the SDK's app, as a
proxy or an auth gateway would.
"""

from __future__ import annotations

import threading
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.responses import PlainTextResponse

STATUS_TEXT = {401: "Unauthorized", 403: "Forbidden", 500: "Internal Server Error"}


def build_server() -> MCPServer:
    server = MCPServer("test-http", log_level="WARNING")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool()
    def big(chars: int) -> str:
        """Return `chars` characters ending in a marker."""
        return "x" * max(0, chars - 11) + " END-OF-BIG"

    @server.prompt()
    def greet(name: str) -> str:
        """Greet someone."""
        return f"Say hello to {name}."

    return server


class HttpMcpServer:
    def __init__(self, token: str | None = None) -> None:
        self.token = token
        self.fail_with: int | None = None
        self.seen_authorization: list[str] = []
        inner = build_server().streamable_http_app()

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                headers = dict(scope["headers"])
                given = headers.get(b"authorization", b"").decode()
                self.seen_authorization.append(given)
                status = self.fail_with
                if status is None and self.token is not None and given != f"Bearer {self.token}":
                    status = 401
                if status is not None:
                    await PlainTextResponse(STATUS_TEXT.get(status, "error"), status_code=status)(scope, receive, send)
                    return
            await inner(scope, receive, send)

        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
        self._thread = threading.Thread(target=self._server.run, name="mcp-http-server", daemon=True)
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the MCP HTTP server did not start")
            self._thread.join(0.02)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)

    def __enter__(self) -> HttpMcpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
