"""One MCP server: connect, list what it offers, answer calls, notice when it goes away.

It runs on the MCP thread's event loop (see manager.py) and, with results.py,
is the only code that imports the SDK. The life of a connection is one task,
because the SDK's transports and session are context managers that must be
entered and left in the same task; calls from other tasks use the session
while that task holds it open. The task ends when the server is stopped, when
the connection closes under it (a server that exits or crashes: the SDK's
dispatcher ends, which it reports), or with the error that broke it, and the
status then says which, in one line that never quotes a header or an
environment value.

A stdio server starts through launcher.py (it dies with hermeslite, even
after `kill -9`) and writes its stderr to a log file, truncated at each start,
whose last line explains an early exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import httpx2
import mcp_types as types
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from pydantic import ValidationError

from hermeslite import __version__

from . import launcher
from .config import McpServerConfig, MissingVariable, expand, expand_map
from .names import tool_name
from .results import call_outcome, prompt_info, prompt_text, tool_info
from .status import CallOutcome, PromptInfo, ServerStatus, State, ToolInfo, Unavailable

CLIENT = types.Implementation(name="hermeslite", version=__version__)
MAX_PAGES = 100  # of tools/list or prompts/list: a server that pages forever cannot hang the start
MAX_EVENT_BYTES = 64 * 1024 * 1024  # one streamed HTTP reply (the SDK's default, 1 MB, refuses big results)
HTTP_TIMEOUT = httpx2.Timeout(30, read=300)  # the SDK's own defaults: a reply stream may stay open
STOP_GRACE = 5.0  # seconds a stop may take (the SDK closes stdin, waits, then signals) before the task is cancelled


class _Ended(Exception):
    """The connection closed while the server was in use."""


class _Watched(JSONRPCDispatcher[Any]):
    """The SDK's dispatcher, telling us when its receive loop ends: the connection is gone."""

    def __init__(self, read_stream: Any, write_stream: Any, ended: asyncio.Event) -> None:
        super().__init__(read_stream, write_stream)
        self._ended = ended

    async def run(self, *args: Any, **kwargs: Any) -> None:
        try:
            await super().run(*args, **kwargs)
        finally:
            self._ended.set()


class Connection:
    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        *,
        cwd: Path,
        log_dir: Path,
        env: Mapping[str, str],
        publish: Callable[[ServerStatus], None],
        generation: int,
    ) -> None:
        self.name = name
        self.config = config
        self._cwd = cwd
        self._log = log_dir / f"{name}.log"
        self._env = dict(env)  # added to a stdio server's environment: the owner mark
        self._publish = publish
        self.status = ServerStatus(
            name,
            config.transport,
            config.target,
            State.STARTING,
            log=str(self._log) if config.command else "",
            generation=generation,
        )
        self._session: ClientSession | None = None
        self._stop = asyncio.Event()
        self._ended = asyncio.Event()
        self._settled = asyncio.Event()
        self._timed_out = False
        self._http_error = ""  # "HTTP 401 Unauthorized", from the latest error response
        self._stage = "start"  # the request the start is waiting for, to name it when it fails
        self._task: asyncio.Task[None] | None = None

    # -- life -------------------------------------------------------------------------

    def start(self) -> None:
        self._publish(self.status)
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp-{self.name}")
        asyncio.get_running_loop().call_later(self.config.startup_timeout, self._overdue)

    async def settled(self) -> None:
        """Until the start is over: ready, failed or stopped."""
        await self._settled.wait()

    async def stop(self) -> None:
        """Close the connection (a stdio server's stdin first, as the spec asks), then its task."""
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self.status.state is State.STARTING:
            task.cancel()
        done, _ = await asyncio.wait({task}, timeout=STOP_GRACE)
        if not done:
            task.cancel()
            await asyncio.wait({task})

    def _overdue(self) -> None:
        """Past the start-up timeout: failed at once (so no one waits for the clean-up), then cancelled."""
        if self.status.state is State.STARTING and self._task is not None and not self._task.done():
            self._timed_out = True
            self._fail(
                f"did not finish starting within {self.config.startup_timeout:g} s "
                f"(mcp_servers.{self.name}.startup_timeout)"
            )
            self._task.cancel()

    def _set(self, state: State, **changes: Any) -> None:
        self.status = replace(self.status, state=state, **changes)
        if state is not State.STARTING:
            self._settled.set()
        self._publish(self.status)

    async def _run(self) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._open(stack)
                session = await stack.enter_async_context(
                    ClientSession(dispatcher=_Watched(read, write, self._ended), client_info=CLIENT)
                )
                self._stage = "initialize"
                capabilities = (await session.initialize()).capabilities
                self._stage = "tools/list"
                tools, skipped = await self._tools(session, capabilities)
                self._stage = "prompts/list"
                prompts = await self._prompts(session, capabilities)
                self._session = session
                self._set(State.READY, tools=tools, prompts=prompts, skipped=skipped)
                await _first(self._stop.wait(), self._ended.wait())
                self._session = None
                if not self._stop.is_set():
                    raise _Ended
            self._set(State.STOPPED, reason="stopped")
        except asyncio.CancelledError:
            if not self._timed_out:  # a timed-out start has said so already
                self._set(State.STOPPED, reason="stopped")
                raise
        except BaseException as exc:  # noqa: BLE001 - anything that ends a server is one line, never a traceback
            leaf = _leaf(exc)
            if not isinstance(leaf, Exception):
                raise
            self._fail(self._describe(leaf))
        finally:
            self._session = None

    def _fail(self, reason: str) -> None:
        self._set(State.FAILED, reason=reason, tools=(), prompts=(), last_error=reason)

    # -- transports ---------------------------------------------------------------------

    async def _open(self, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        where = f"mcp_servers.{self.name}"
        if self.config.url:
            url = expand(self.config.url, f"{where}.url")
            client = httpx2.AsyncClient(
                headers=expand_map(self.config.headers, f"{where}.headers"),
                timeout=HTTP_TIMEOUT,
                event_hooks={"response": [self._saw_response]},
            )
            await stack.enter_async_context(client)
            return await stack.enter_async_context(
                streamable_http_client(url, http_client=client, max_sse_event_size=MAX_EVENT_BYTES)
            )
        params = self._stdio_params(where)
        self._log.parent.mkdir(parents=True, exist_ok=True)
        log: TextIO = stack.enter_context(open(self._log, "w", encoding="utf-8"))  # noqa: SIM115 - held by the stack
        return await stack.enter_async_context(stdio_client(params, errlog=log))

    def _stdio_params(self, where: str) -> StdioServerParameters:
        """The launcher running the configured command, with the expanded arguments and environment."""
        assert self.config.command is not None  # a server is stdio or HTTP; this one is stdio
        cwd = self._cwd
        if self.config.cwd:
            cwd = (self._cwd / Path(expand(self.config.cwd, f"{where}.cwd")).expanduser()).resolve()
            if not cwd.is_dir():
                raise Unavailable(f"its cwd {cwd} is not a directory")
        env = {**expand_map(self.config.env, f"{where}.env"), **self._env}
        command = expand(self.config.command, f"{where}.command")
        program = str(cwd / command) if "/" in command else shutil.which(command, path=env.get("PATH"))
        if program is None or not Path(program).is_file():
            raise Unavailable(f"command not found: {command}")
        args = [expand(arg, f"{where}.args") for arg in self.config.args]
        return StdioServerParameters(
            command=sys.executable, args=["-S", "-E", launcher.__file__, program, *args], env=env, cwd=cwd
        )

    async def _saw_response(self, response: httpx2.Response) -> None:
        if response.status_code >= 400:
            self._http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    # -- what it offers -------------------------------------------------------------------

    async def _tools(
        self, session: ClientSession, capabilities: types.ServerCapabilities
    ) -> tuple[tuple[ToolInfo, ...], tuple[str, ...]]:
        """The tools offered to the model, by name, and a line for each one left out for a fault."""
        if capabilities.tools is None:
            return (), ()
        listed: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            listed.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        offered: dict[str, ToolInfo] = {}
        skipped: list[str] = []
        for tool in listed:
            if not self.config.offers(tool.name):
                continue
            exposed = tool_name(self.name, tool.name)
            problem = schema_problem(tool.input_schema)
            if exposed in offered:
                problem = f"its name {exposed} is taken by {offered[exposed].name}"
            if problem:
                skipped.append(f"tool {tool.name} skipped: {problem}")
                continue
            offered[exposed] = tool_info(tool)
        return tuple(offered[name] for name in sorted(offered)), tuple(skipped)

    async def _prompts(self, session: ClientSession, capabilities: types.ServerCapabilities) -> tuple[PromptInfo, ...]:
        if capabilities.prompts is None:
            return ()
        listed: list[types.Prompt] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_prompts(params=params)
            listed.extend(page.prompts)
            cursor = page.next_cursor
            if not cursor:
                break
        return tuple(sorted((prompt_info(p) for p in listed), key=lambda p: p.name))

    # -- calls ----------------------------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        session = self._ready_session()
        try:
            result = await session.call_tool(tool, arguments, read_timeout_seconds=self.config.timeout)
        except Exception as exc:  # noqa: BLE001 - a failed call is an error the model reads
            raise await self._call_failed(exc, tool) from None
        return call_outcome(result)

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> str:
        session = self._ready_session()
        try:
            result = await session.get_prompt(prompt, arguments)
        except Exception as exc:  # noqa: BLE001
            raise await self._call_failed(exc, f"prompt {prompt}") from None
        return prompt_text(result)

    def _ready_session(self) -> ClientSession:
        if self._session is None or self.status.state is not State.READY:
            why = self.status.reason or self.status.state.value
            raise Unavailable(
                f"MCP server {self.name} is not running ({why}); /mcp restart {self.name} starts it again"
            )
        return self._session

    async def _call_failed(self, exc: Exception, what: str) -> Unavailable:
        if isinstance(exc, MCPError) and exc.code == types.REQUEST_TIMEOUT:
            line = (
                f"MCP server {self.name} did not answer {what} within {self.config.timeout:g} s "
                f"(mcp_servers.{self.name}.timeout)"
            )
        elif isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
            if self._task is not None:  # the connection is winding down: its end says why
                await asyncio.wait({self._task}, timeout=STOP_GRACE)
            why = self.status.reason if self.status.state is State.FAILED else self._gone_reason()
            line = f"MCP server {self.name} is gone ({why}); /mcp restart {self.name} starts it again"
        else:
            line = f"MCP server {self.name}, {what}: {self._describe(exc)}"
        self.status = replace(self.status, last_error=line)
        self._publish(self.status)
        return Unavailable(line)

    # -- saying what went wrong -----------------------------------------------------------

    def _describe(self, exc: Exception) -> str:
        if isinstance(exc, (Unavailable, MissingVariable)):
            return str(exc)
        if isinstance(exc, _Ended) or (isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED):
            return self._gone_reason()
        if self._http_error:
            return self._http_reason()
        if isinstance(exc, httpx2.HTTPError):
            return f"cannot reach {self.config.url}: {_first_line(exc) or type(exc).__name__}"
        if isinstance(exc, ValidationError):
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            return f"its {self._stage} reply is not valid MCP ({where}: {_first_line(first['msg'])})"
        if isinstance(exc, OSError):
            return f"cannot start {self.config.command}: {exc.strerror or exc}"
        if isinstance(exc, MCPError):
            return f"{self._stage} failed: {_first_line(exc.message)}"
        return _first_line(exc) or type(exc).__name__

    def _http_reason(self) -> str:
        reason = f"{self._http_error} from {self.config.url}"
        if self._http_error.startswith(("HTTP 401", "HTTP 403")):
            reason += f" (check mcp_servers.{self.name}.headers)"
        return reason

    def _gone_reason(self) -> str:
        if self.config.url:
            return self._http_reason() if self._http_error else "the server closed the connection"
        return _log_reason(self._log) or "the server exited"


def schema_problem(schema: dict[str, Any]) -> str:
    """Why a tool's input schema cannot be offered (providers refuse the whole request over one), or ""."""
    if schema.get("type") != "object":
        return "its input schema is not an object schema"
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return f"its input schema is invalid ({_first_line(exc.message)})"
    return ""


def _log_reason(log: Path) -> str:
    """Why a stdio server ended, from its log: the launcher's line that it could not run the
    program, else the last line the server wrote (the launcher ends it with the exit status)."""
    try:
        with open(log, "rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(0, handle.tell() - 4096))
            lines = [line.strip() for line in handle.read().decode("utf-8", "replace").splitlines() if line.strip()]
    except OSError:
        return ""
    for line in lines:
        if line.startswith("hermeslite: cannot run"):
            return line.removeprefix("hermeslite: ")
    if not lines:
        return ""
    last = lines[-1].removeprefix("hermeslite: ")
    before = [line for line in lines[:-1] if not line.startswith("hermeslite:")]
    return f"{last}; it last wrote: {_first_line(before[-1], 160)}" if before and last != lines[-1] else last


def _first_line(value: object, limit: int = 200) -> str:
    text = str(value).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups that is not a cancellation."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = inner[0] if inner else exc.exceptions[0]
    return exc


async def _first(*waits: Any) -> None:
    """Until the first of `waits` (coroutines) finishes; the others are cancelled."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
