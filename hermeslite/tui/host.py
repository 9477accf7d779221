"""Owning the agent on behalf of the UI: build it off the event loop, swap it, switch models.

The first frame must not wait for litellm (about 3 s to import), the
session database or the tokenizer. So the app draws first and then calls
`start()`; the agent is built in threads while the user types, and the first
send simply awaits `ready()`. A failed start is retried by the next `ready()`,
so a user who fixes their network or key does not have to restart.

Events from an agent that has been replaced (after /new or /resume) are
dropped: only the current agent speaks to the UI. A session left without a
single user message (opened, then closed or switched away from) is deleted,
so quick launches do not fill the session list or capture `--continue`.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from hermeslite.config import Settings
from hermeslite.llm.settings import ModelConfig

if TYPE_CHECKING:  # not at run time: the first frame must not wait for the agent's modules
    from hermeslite.agent.events import Event
    from hermeslite.agent.loop import Agent
    from hermeslite.llm.types import LLMClient
    from hermeslite.store.sessions import SessionStore
    from hermeslite.tools.mcp.manager import McpServers

Deliver = Callable[["Event"], None]
HANDOFF = 0.001  # seconds a start-up thread may hold the GIL while the event loop waits for it


@contextlib.contextmanager
def quick_handoffs() -> Iterator[None]:
    """While the agent loads in threads, hand the GIL back to the event loop within 1 ms.

    The import of litellm runs in a thread and holds the GIL; each time the
    loop wakes (a key arrives, a timer fires) it waits for the GIL up to
    Python's switch interval, 5 ms by default, and handling one key takes
    several such waits: keys typed while the app started took 30-110 ms.
    With 1 ms the worst key stayed under 30 ms (benchmarks/tui_bench.py);
    the interval is restored once the agent is built.
    """
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, HANDOFF))
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


Booted = Callable[[asyncio.Task], None]


class AgentHost:
    def __init__(
        self,
        settings: Settings,
        cwd: Path,
        deliver: Deliver,
        *,
        session_id: str | None = None,
        llm: LLMClient | None = None,
        store: SessionStore | None = None,
        on_boot: Booted | None = None,
        mode: str | None = None,
    ) -> None:
        self.settings = settings
        self.start_mode = mode  # --mode, for the first agent; later ones keep the mode or their session's
        self.cwd = cwd
        self.deliver = deliver
        self.model_cfg = settings.model  # resolved (a name picked when none is set) by `start`
        self.model_origin: str | None = None  # how a model nobody named was picked ("from OPENAI_API_KEY")
        self.session_id = session_id
        self.agent: Agent | None = None
        self._llm = llm
        self._store = store
        self._owns_store = store is None
        self._task: asyncio.Task | None = None
        self._on_boot = on_boot  # told about every start-up attempt, failed or not
        self._closing = threading.Lock()
        self._closed = False
        self._newest: Agent | None = None  # the last agent built, current or not yet handed over
        self._mcp: McpServers | None = None  # the MCP servers, started once for every agent of the app
        self.kept_session: str | None = None  # set at close: the session left saved, to say how to resume it

    @property
    def model_name(self) -> str:
        return (self._llm.model if self._llm is not None else None) or self.model_cfg.name or "choosing a model"

    # -- start-up ------------------------------------------------------------------

    def start(self) -> asyncio.Task:
        """Begin building the agent (once; again only after a failure)."""
        from hermeslite.llm.select import pick_model  # the llm package: not before the first frame

        if not self.model_cfg.name:
            pick = pick_model(self.model_cfg)
            self.model_cfg, self.model_origin = pick.config, pick.origin
        task = self._task
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            task = self._task = asyncio.create_task(self._boot(), name="hermeslite-boot")
            if self._on_boot is not None:
                task.add_done_callback(self._on_boot)
        return task

    async def ready(self) -> Agent:
        """The agent, waiting for the start-up if it is still running; raises what start-up raised."""
        if self.agent is not None:
            return self.agent
        return await asyncio.shield(self.start())

    async def _boot(self) -> Agent:
        from hermeslite.llm.select import make_client

        with quick_handoffs():
            factory = await self._factory()
            if self._mcp is None:  # first, so the servers start while litellm loads
                self._mcp = factory.start_mcp(self.settings, self.cwd)
            if self._llm is None:
                self._llm = make_client(self.model_cfg, max_retries=self.settings.agent.max_retries)
            await self._llm.prepare()  # litellm imported and the window looked up off the loop
            if self._store is None:
                self._store = await asyncio.to_thread(factory.open_store)
            return await self.build(self.session_id)

    async def _factory(self) -> ModuleType:
        """`hermeslite.agent.factory`, imported in a thread (it pulls in the tools and the engine)."""
        return await asyncio.to_thread(importlib.import_module, "hermeslite.agent.factory")

    # -- sessions and models -----------------------------------------------------

    @property
    def _opened_store(self) -> SessionStore:
        """The session store, which `_boot` has opened before any agent exists."""
        assert self._store is not None, "the store is opened before the first agent is built"
        return self._store

    async def build(self, session_id: str | None) -> Agent:
        """A new agent on `session_id` (None: a new session) with the current model and store."""
        factory = await self._factory()
        agent = await asyncio.to_thread(self._build_agent, factory, session_id)
        agent.subscribe(partial(self._forward, agent))
        previous = self.agent
        if previous is not None:
            agent.carry_calibration(previous)
        self.agent, self.session_id = agent, agent.session_id
        agent.listen_for_mcp_news()  # the one shown now: a server that fails says so at once
        if previous is not None and previous.session_id != agent.session_id:
            previous.discard_if_unused()
            self._opened_store.release(previous.session_id)  # another process may continue it now
        return agent

    def _build_agent(self, factory: ModuleType, session_id: str | None) -> Agent:
        """In a thread, which runs on after the app has quit: then the new session is deleted here
        (unless used), and otherwise `close` sees it, so a quick quit leaves no empty session."""
        settings = replace(self.settings, model=self.model_cfg)  # the model /model switched to, if it did
        mode = self.start_mode
        if mode is None and session_id is None and self.agent is not None:
            mode = self.agent.mode  # /new goes on in the mode the user chose; /resume in its session's
        agent = factory.build_agent(
            settings,
            cwd=self.cwd,
            interactive=True,
            session_id=session_id,
            llm=self._llm,
            store=self._store,
            mcp=self._mcp,
            mode=mode,
        )
        self.start_mode = None
        with self._closing:
            if self._closed:
                agent.discard_if_unused()
            self._newest = agent
        return agent

    def _forward(self, source: Agent, event: Event) -> None:
        if source is self.agent:
            self.deliver(event)

    async def switch_model(self, name: str) -> LLMClient:
        """A client for `name`, prepared off the loop, handed to the agent; returns it (see model_switch)."""
        from hermeslite.agent.model_switch import switch_model

        agent = await self.ready()
        llm, cfg = await switch_model(agent, self.model_cfg, name, self.settings.agent.max_retries)
        self._llm, self.model_cfg, self.model_origin = llm, cfg, None
        return llm

    async def use_model(self, cfg: ModelConfig) -> LLMClient:
        """Go on with the model config `cfg` as it is (endpoint and key included): the first-run choice."""
        from hermeslite.agent.model_switch import switch_to

        agent = await self.ready()
        llm = await switch_to(agent, cfg, self.settings.agent.max_retries)
        self._llm, self.model_cfg, self.model_origin = llm, cfg, None
        return llm

    def window_warning(self) -> str | None:
        return self._llm.context_window_warning if self._llm is not None else None

    def sandbox_warning(self) -> str | None:
        """What the sandbox cannot do for terminal commands here, said once at start-up; None when fully confined."""
        from hermeslite.agent.factory import sandbox_assessment

        return sandbox_assessment(self.settings, self.cwd).warning

    def workplace_warning(self) -> str | None:
        """Why the working directory is no place for a project ($HOME, /, a system folder); None when it is one."""
        from hermeslite.tools.workplace import risky_workplace

        return risky_workplace(self.cwd, Path.home())

    def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        with self._closing:
            self._closed = True
            if self._newest is not None and not self._newest.discard_if_unused():
                self.kept_session = self._newest.session_id
        if self._mcp is not None:
            self._mcp.close()
        if self._owns_store and self._store is not None:
            self._store.close()
