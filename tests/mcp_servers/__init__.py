"""MCP servers written with the official SDK, for the MCP client's tests and the start-up benchmark.

`stdio_server.py` runs as a program (its flags pick the misbehaviours under
test), `http_server.py` serves streamable HTTP on 127.0.0.1 from a thread of
the test process, `broken_server.py` lists a tool whose schema is invalid.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STDIO_SERVER = HERE / "stdio_server.py"
BROKEN_SERVER = HERE / "broken_server.py"


def stdio_entry(*flags: str, **keys: object) -> dict[str, object]:
    """An `mcp_servers:` entry running stdio_server.py with `flags`, plus any other keys."""
    return {"command": sys.executable, "args": [str(STDIO_SERVER), *flags], **keys}
