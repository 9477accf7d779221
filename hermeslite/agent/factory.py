"""Building an agent from settings: the one place that wires every layer together."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace
from pathlib import Path

from hermeslite.config import Settings
from hermeslite.context.compressor import ContextCompressor
from hermeslite.context.handoff import has_handoff
from hermeslite.context.threshold import Threshold, resolve_threshold
from hermeslite.extensions.skills import Skills, load_skills
from hermeslite.llm.model_names import same_model
from hermeslite.llm.select import make_client, resolve_model
from hermeslite.llm.settings import ModelConfig
from hermeslite.llm.types import LLMClient
from hermeslite.store.memory import MemoryStore, default_memory_dir
from hermeslite.store.sessions import SessionInfo, SessionStore, StoreError, default_sessions_path
from hermeslite.store.todos import TodoList
from hermeslite.tools.base import ToolContext, deny_all
from hermeslite.tools.context_tool import ContextTool
from hermeslite.tools.hooks.settings import table_of
from hermeslite.tools.mcp.manager import McpServers
from hermeslite.tools.memory import MemoryTool
from hermeslite.tools.recall import RecallTool
from hermeslite.tools.registry import default_registry
from hermeslite.tools.sandbox import Assessment, assess, expand_paths, temp_dir
from hermeslite.tools.shell_policy import Boundary
from hermeslite.tools.skill import SkillTool
from hermeslite.tools.todo import TodoTool
from hermeslite.tools.web.tool import WebFetchTool
from hermeslite.tools.workplace import risky_workplace

from .checkpoints import Checkpoints
from .context_steering import AgentSteering
from .deps import AgentDeps
from .hooks import Hooks
from .loop import Agent
from .mcp import McpTools
from .modes import ModeError, ModeState
from .output_archive import session_archive
from .project_docs import STALE_NOTE
from .prompt import is_chat_only
from .request_size import saved_calibration
from .saving import SessionSaver
from .summarizer import serialized_summarizer
from .usage import Clock, UsageMeter
from .window import settle_window


def configured_threshold(settings: Settings) -> tuple[str, Threshold, str | None]:
    """The model the settings select, the compaction threshold it gets without a session, and the
    warning when its window is a guess (an unknown model).

    Looking up the window may import litellm (a few seconds) when the config does not state it.
    """
    model = resolve_model(settings.model)
    if settings.compression.context_length:
        window, warning = settings.compression.context_length, None
    else:
        client = make_client(model)
        window = client.context_window()
        warning = client.context_window_warning
    return model.name or "", resolve_threshold(settings.compression, window, model.name), warning


def sandbox_assessment(settings: Settings, cwd: Path) -> Assessment:
    """What confines this agent's commands, and what to warn about at start (see tools.sandbox.assess)."""
    tools = settings.tools
    memory = (default_memory_dir(settings.memory.dir),) if settings.memory.dir else ()
    return assess(tools.sandbox, tools.writable_paths, cwd, tools.network_allow, memory)


def tool_context(settings: Settings, cwd: Path, skills: Skills | None = None) -> ToolContext:
    """The boundary, sandbox and limits every tool call of this agent runs with, built once.

    The user's skill folders are readable like tools.readable_paths: the skill tool lists their
    files for the model to read."""
    tools = settings.tools
    writable = expand_paths(tools.writable_paths, cwd)
    return ToolContext(
        cwd=cwd,
        approve=deny_all,
        approval_policy=tools.approval,
        edits=tools.edits,
        terminal_timeout=tools.terminal_timeout,
        output_limit=tools.output_limit,
        archive_ceiling=tools.output_archive_mb << 20,
        boundary=Boundary(cwd, Path.home(), (temp_dir(), *writable)),
        sandbox=sandbox_assessment(settings, cwd).sandbox,
        readable_paths=(
            *expand_paths(tools.readable_paths, cwd),
            *writable,
            *(skills.readable_roots() if skills else ()),
        ),
        pass_env=tools.passthrough,
        hidden_env=(settings.model.api_key_env,) if settings.model.api_key_env else (),
        risky_workplace=risky_workplace(cwd, Path.home()),
    )


def open_store() -> SessionStore:
    return SessionStore(default_sessions_path())


def start_mcp(settings: Settings, cwd: Path) -> McpServers | None:
    """The configured MCP servers, starting in the background (None when none is configured)."""
    if not settings.mcp_servers:
        return None
    servers = McpServers(settings.mcp_servers, cwd)
    if any(server.enabled for server in settings.mcp_servers.values()):
        servers.start()
    return servers


def build_agent(
    settings: Settings,
    *,
    cwd: Path,
    interactive: bool,
    session_id: str | None = None,
    llm: LLMClient | None = None,
    store: SessionStore | None = None,
    mcp: McpServers | None = None,
    mode: str | None = None,
    clock: Clock | None = None,
) -> Agent:
    """An agent on a new session, or on `session_id` (already resolved) with its transcript restored.

    A new session that could not be set up (its system prompt reads the user's
    memory files) is deleted again, so `--continue` never finds an empty one.
    `mcp`: servers already started (by an earlier agent of the process, or a
    front end that starts them early); without it they are started here, first,
    so they start while the model's client loads. `mode`: the mode to start in (ModeError when it
    cannot be had); None: the session's recorded mode, default for a new one. `clock`: the time usage
    rows are stamped with and idle compaction measures by (tests and benchmarks let time pass).
    """
    store = store or open_store()
    servers = mcp or start_mcp(settings, cwd)
    try:
        agent = _build_on(
            settings, cwd=cwd, interactive=interactive, session_id=session_id, llm=llm, store=store, mcp=servers
        )
        _start_mode(agent, store, mode)
        if clock is not None:
            agent.deps.usage.clock = clock
        return agent
    except BaseException:
        if mcp is None and servers is not None:  # started here for an agent that could not be built
            servers.close()
        raise


def _build_on(
    settings: Settings,
    *,
    cwd: Path,
    interactive: bool,
    session_id: str | None,
    llm: LLMClient | None,
    store: SessionStore,
    mcp: McpServers | None,
) -> Agent:
    if session_id is not None:
        return _build(
            settings, cwd=cwd, interactive=interactive, session_id=session_id, new=False, llm=llm, store=store, mcp=mcp
        )
    model = resolve_model(settings.model)
    created = store.create_session(model=model.name, cwd=str(cwd), api_base=model.api_base)
    try:
        return _build(
            settings, cwd=cwd, interactive=interactive, session_id=created, new=True, llm=llm, store=store, mcp=mcp
        )
    except BaseException:
        with suppress(StoreError):  # the fault that stopped the set-up is the one to report
            store.delete_session(created)
        raise


def _build(
    settings: Settings,
    *,
    cwd: Path,
    interactive: bool,
    session_id: str,
    new: bool,
    llm: LLMClient | None,
    store: SessionStore,
    mcp: McpServers | None = None,
) -> Agent:
    model = resolve_model(settings.model)
    llm = llm or make_client(model, max_retries=settings.agent.max_retries)
    notes: list[str] = []
    record: SessionInfo | None = None  # a resumed session's saved record (model, endpoint, folder)
    if new:
        loaded: list[dict] | None = None
    else:
        store.claim(session_id)  # one writer per session: "in use by pid N" before anything else
        restored = store.open_transcript(session_id)
        loaded, notes = restored.messages, restored.notes
        record = store.get_session(session_id)
    todos = TodoList.from_json(store.load_todos(session_id))
    memory = MemoryStore.from_config(settings.memory)
    memory_tool = MemoryTool(memory)
    skills = load_skills(cwd, shared=settings.skills.shared)
    notes = [*notes, *skills.problems]
    registry = default_registry(
        extra_tools=[
            memory_tool,
            TodoTool(todos, on_change=lambda t: store.save_todos(session_id, t.to_json())),
            RecallTool(store, lambda: session_id),
            WebFetchTool(settings.tools.web_fetch),
            *([SkillTool(skills)] if skills.skills else []),  # no skills, no tool (the format's guide)
            # Opt-in: the agent is built below, so the tool asks for it when called.
            *([ContextTool(lambda: AgentSteering(agent))] if settings.compression.agent_tool else []),
        ]
    )
    tool_ctx = replace(
        tool_context(settings, cwd, skills),
        archive=session_archive(store, session_id),  # output over the cap is kept whole (tools/spill.py)
        spill_dir=store.path.parent,  # a long output waits on the disk that holds the sessions, not in RAM
    )
    saver = SessionSaver(store, session_id, lambda event: agent.emit(event))  # the agent is built below
    if not new and not _recorded_with(record, model):
        saver.using_model(model.name or "", model.api_base)  # recorded once a request on it is answered
    usage = UsageMeter(store, session_id, saver)
    settle_window(llm, saver, settings.compression)
    compressor = ContextCompressor(
        settings.compression,
        context_length=llm.context_window(),
        summarize=serialized_summarizer(lambda: deps.llm, usage, settings.compression.summary_timeout),
        summary_input_tokens=llm.summary_input_tokens,
        model=llm.model,
        tool_roles=registry.tool_roles(),
    )
    deps = AgentDeps(
        settings=settings,
        llm=llm,
        registry=registry,
        tool_ctx=tool_ctx,
        store=store,
        memory=memory,
        memory_tool=memory_tool,
        todos=todos,
        compressor=compressor,
        cwd=cwd,
        usage=usage,
        checkpoints=Checkpoints(settings.checkpoints, store, session_id, cwd, lambda event: agent.emit(event)),
        mode=ModeState(
            tool_ctx,
            lambda name: store.save_mode(session_id, name),
            None if tool_ctx.sandbox is not None else sandbox_assessment(settings, cwd).warning,
        ),
        hooks=Hooks(
            table_of(settings.hooks),
            session_id=session_id,
            cwd=cwd,
            approval=settings.tools.approval,
            hidden_env=tool_ctx.hidden_env,
            pass_env=tool_ctx.pass_env,
            model=lambda: deps.llm.model,
            opened="startup" if new else "resume",
        ),
        skills=skills,
        mcp=McpTools(mcp) if mcp is not None else None,
    )
    if loaded is None:
        messages = [deps.system_message()]
        store.append_message(session_id, messages[0])
    else:
        messages = _resumed(loaded, deps, same_place=record is not None and record.cwd == str(cwd))
    notes = [*notes, *_instruction_notes(deps, messages[0])]
    agent = Agent(deps, session_id, messages, saver, interactive=interactive, notes=notes)
    if loaded is not None:
        # A resumed session counts in the provider's tokens from its first meter reading and preflight.
        agent.size.calibration = saved_calibration(store, session_id, llm.model)
    return agent


def _start_mode(agent: Agent, store: SessionStore, requested: str | None) -> None:
    """Put a new agent in `requested` (raises ModeError), else in its session's recorded mode; a
    recorded plan mode the kernel cannot enforce here becomes default, with a note saying so."""
    if requested is not None:
        try:
            agent.deps.mode.switch(requested)
        except ModeError:
            agent.discard_if_unused()  # a new session that cannot start as asked is not kept
            raise
        return
    recorded = store.load_mode(agent.session_id)
    if recorded is None or recorded == agent.deps.mode.name:
        return
    try:
        agent.deps.mode.switch(recorded, save=False)
    except ModeError as exc:
        agent.notes = (*agent.notes, f"{exc}; this session goes on in default mode")


def build_successor(
    old: Agent, settings: Settings, *, session_id: str | None, store: SessionStore, mode: str | None = None
) -> Agent:
    """An agent on `session_id` (None: a new session) with `old`'s model, working directory and
    interactivity: what a front end switches to after /new, /resume or /handoff. A new session keeps
    `old`'s mode; a resumed one its own (`mode` overrides either)."""
    if mode is None and session_id is None:
        mode = old.mode
    return build_agent(
        settings,
        cwd=old.deps.cwd,
        interactive=old.interactive,
        session_id=session_id,
        llm=old.deps.llm,
        store=store,
        mcp=old.deps.mcp.servers if old.deps.mcp is not None else None,
        mode=mode,
    )


def _recorded_with(info: SessionInfo | None, model: ModelConfig) -> bool:
    """Whether the session's record already names `model` at its endpoint (under any spelling)."""
    return info is not None and same_model(info.model, model.name) and info.api_base == model.api_base


def _resumed(loaded: list[dict], deps: AgentDeps, *, same_place: bool) -> list[dict]:
    """A saved transcript, with the system prompt it was saved with when resumed where it started.

    Keeping that prompt byte for byte keeps the provider's prompt cache valid
    across processes (`-p ... --continue` is a new process every turn); it is
    rebuilt, with fresh memory, at the next compaction. Resumed elsewhere, the
    prompt is rebuilt now, because it names the working directory; so is one
    written for a model with tools when this one has none (or the reverse).
    """
    saved = loaded[0] if loaded and loaded[0].get("role") == "system" else None
    rest = loaded[1:] if saved is not None else loaded
    # A prompt saved for a model without tools is rebuilt for one with them, and the other way round.
    if saved is not None and same_place and is_chat_only(saved) == deps.llm.supports_tools:
        same_place = False
    if saved is not None and same_place:
        deps.instructions = deps.read_instructions()  # to report them; the saved prompt may hold older ones
        return [saved, *rest]
    return [deps.system_message(compacted=any(has_handoff(m) for m in rest)), *rest]


def _instruction_notes(deps: AgentDeps, system: dict) -> list[str]:
    """The instruction files that could not be read or were cut, and whether a resumed session's saved
    prompt holds other ones than the files on disk now."""
    stale = [] if deps.instructions.in_prompt(system.get("content")) else [STALE_NOTE]
    return [*deps.instructions.problems, *stale]
