"""All configured MCP servers, run on a thread of their own.

The servers start the moment the manager does, in parallel, on a private
event loop in a daemon thread: nothing the user waits for (the first frame,
the model's start-up, a `-p` run that does not need them) waits for them or
for the SDK's import, which happens on that thread. Whoever holds the manager
(the agent) asks it for plain snapshots (`statuses`) and makes calls through
it from its own loop; each call is handed to the servers' loop and awaited
across, and cancelling the caller cancels the call.

The thread also matters for stdio servers: each is started from it, and the
launcher asks the kernel to be told when the thread that started it dies. This
thread lives as long as hermeslite, so only hermeslite's end, however it
comes, ends them that way. `close` stops them in order, at exit too.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from hermeslite.paths import state_dir
from hermeslite.tools.process_groups import owner_mark

from .config import McpServerConfig
from .status import CallOutcome, ServerStatus, State, Unavailable

if TYPE_CHECKING:
    from .connection import Connection

T = TypeVar("T")
CLOSE_WAIT = 3.0  # seconds `close` gives the servers to stop before leaving the rest to the launchers
SDK_LOGGERS = ("mcp", "httpx2", "httpcore2")
_logging_done = False


def log_dir() -> Path:
    """Where each stdio server's stderr goes (<name>.log), and the client's own warnings (client.log)."""
    return state_dir() / "mcp"


class McpServers:
    """The servers of one hermeslite process. `start()` once; `close()` at the end (also run at exit)."""

    def __init__(self, configs: Mapping[str, McpServerConfig], cwd: Path) -> None:
        self.configs = dict(sorted(configs.items()))
        self._cwd = cwd
        self._lock = threading.Lock()
        self._statuses = {name: _initial(name, config) for name, config in self.configs.items()}
        self._reporter: Callable[[], None] | None = None
        self._told: dict[str, tuple[object, ...]] = {}  # what take_news has said about each server
        self._connections: dict[str, Connection] = {}  # the servers' thread only
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- from any thread ---------------------------------------------------------------

    def start(self) -> None:
        """Start the thread and, on it, every enabled server; returns at once."""
        if self._thread is not None:
            return
        running = threading.Event()
        self._thread = threading.Thread(target=self._main, args=(running,), name="hermeslite-mcp", daemon=True)
        self._thread.start()
        running.wait()
        atexit.register(self.close)

    def statuses(self) -> list[ServerStatus]:
        """Every configured server as it stands, by name."""
        with self._lock:
            return [self._statuses[name] for name in self.configs]

    def set_reporter(self, callback: Callable[[], None] | None) -> None:
        """Call `callback()` after every change of a server's status (None: stop). There is one: the
        agent a front end shows now replaces the one before. It runs on the servers' thread, so it
        must only hand the news over to its own loop (`take_news` there)."""
        with self._lock:
            self._reporter = callback

    def take_news(self) -> list[str]:
        """One line for each failure not told yet: a server that could not start or went away, a
        tool left out for a broken schema. Each is told once, whoever asks."""
        lines: list[str] = []
        with self._lock:
            for name, status in self._statuses.items():
                key = (status.generation, status.state, status.reason, status.skipped)
                if self._told.get(name) == key:
                    continue
                self._told[name] = key
                if status.state is State.FAILED:
                    lines.append(f"MCP server {name} failed: {status.reason}")
                elif status.state is State.READY:
                    lines += [f"MCP server {name}: {line}" for line in status.skipped]
        return lines

    def close(self) -> None:
        """Stop every server (a stdio server's stdin is closed first) and the thread, waiting at
        most CLOSE_WAIT seconds; a server still running then is ended by its launcher when
        hermeslite exits."""
        loop, thread = self._loop, self._thread
        if self._closed or loop is None or thread is None or threading.current_thread() is thread:
            return
        self._closed = True
        atexit.unregister(self.close)
        try:
            asyncio.run_coroutine_threadsafe(self._shut_down(), loop).result(CLOSE_WAIT)
        except (concurrent.futures.TimeoutError, RuntimeError):
            return
        thread.join(CLOSE_WAIT)

    # -- from the caller's event loop ---------------------------------------------------------

    async def wait_started(self) -> None:
        """Until no server is still starting (each start is bounded by its startup_timeout)."""
        await self._across(self._wait_started())

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        """Call `server`'s tool `tool` (its own name); raises Unavailable with the line to show."""
        return await self._across(self._on(server).call_tool(tool, arguments))

    async def get_prompt(self, server: str, prompt: str, arguments: dict[str, str]) -> str:
        """The text of `server`'s prompt `prompt`; raises Unavailable with the line to show."""
        return await self._across(self._on(server).get_prompt(prompt, arguments))

    async def restart(self, server: str) -> ServerStatus:
        """Stop `server` and start it again; returns its status once the start is over."""
        if server not in self.configs:
            known = ", ".join(self.configs) or "none"
            raise Unavailable(f"there is no MCP server named {server} (configured: {known})")
        if not self.configs[server].enabled:
            raise Unavailable(f"MCP server {server} is disabled in the config (enabled: false)")
        return await self._across(self._restart(server))

    async def _across(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._loop is None or self._closed:
            coroutine.close()
            raise Unavailable("the MCP servers have been shut down")
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self._loop))

    # -- on the servers' thread -------------------------------------------------------------------

    def _main(self, running: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        self._closing = asyncio.Event()
        running.set()
        try:
            loop.run_until_complete(self._serve())
        finally:
            loop.close()

    async def _serve(self) -> None:
        try:
            from . import connection  # noqa: F401 - the MCP SDK: imported here, on this thread, only when a server is configured
        except ImportError as exc:
            for name, config in self.configs.items():
                if config.enabled:
                    self._publish(_initial(name, config, State.FAILED, f"the MCP SDK could not be loaded: {exc}"))
            await self._wait_closing()
            return
        _quiet_sdk_logging()
        for name, config in self.configs.items():
            if config.enabled:
                self._connect(name, 1)
        await self._wait_closing()

    async def _wait_closing(self) -> None:
        assert self._closing is not None  # made by _main before the loop runs
        await self._closing.wait()

    def _connect(self, name: str, generation: int) -> Connection:
        from .connection import Connection

        made = Connection(
            name,
            self.configs[name],
            cwd=self._cwd,
            log_dir=log_dir(),
            env=owner_mark(),
            publish=self._publish,
            generation=generation,
        )
        self._connections[name] = made
        made.start()
        return made

    def _publish(self, status: ServerStatus) -> None:
        with self._lock:
            current = self._statuses.get(status.name)
            if current is not None and status.generation < current.generation:
                return  # from a connection a restart replaced (a call of it failing late)
            self._statuses[status.name] = status
            reporter = self._reporter
        if reporter is not None:
            reporter()

    def _on(self, server: str) -> _Calls:
        return _Calls(self, server)

    def _connection(self, server: str) -> Connection:
        found = self._connections.get(server)
        if found is None:
            status = self._statuses.get(server)
            why = status.reason if status is not None else "it is not configured"
            raise Unavailable(f"MCP server {server} is not running ({why})")
        return found

    async def _wait_started(self) -> None:
        for connection in list(self._connections.values()):
            await connection.settled()

    async def _restart(self, server: str) -> ServerStatus:
        old = self._connections.get(server)
        if old is not None:
            await old.stop()
        fresh = self._connect(server, (old.status.generation if old else 0) + 1)
        await fresh.settled()
        return fresh.status

    async def _shut_down(self) -> None:
        await asyncio.gather(*(c.stop() for c in self._connections.values()), return_exceptions=True)
        assert self._closing is not None
        self._closing.set()


class _Calls:
    """One server's calls, looked up on the servers' thread when they run."""

    def __init__(self, servers: McpServers, server: str) -> None:
        self._servers = servers
        self._server = server

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        return await self._servers._connection(self._server).call_tool(tool, arguments)

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> str:
        return await self._servers._connection(self._server).get_prompt(prompt, arguments)


def _initial(name: str, config: McpServerConfig, state: State | None = None, reason: str = "") -> ServerStatus:
    if state is None:
        state, reason = (State.STARTING, "") if config.enabled else (State.STOPPED, "disabled (enabled: false)")
    return ServerStatus(name, config.transport, config.target, state, reason=reason, last_error=reason)


def _quiet_sdk_logging() -> None:
    """The SDK and its HTTP client log warnings; on a terminal they would draw over the app, so they
    go to client.log in the log directory instead (once per process)."""
    global _logging_done
    if _logging_done:
        return
    _logging_done = True
    try:
        log_dir().mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(log_dir() / "client.log", encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False
