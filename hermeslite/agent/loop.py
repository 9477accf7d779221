"""The turn loop: send, stream, run tools, repeat; compress when the context fills.

The agent owns the live transcript and keeps three things true at every
await point: the transcript is provider-valid (cancellation included), every
complete message is already saved, and the front ends hear about everything
through events rather than by reading agent state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace
from typing import Any

from hermeslite.context.compressor import ContextCompressor
from hermeslite.context.handoff import has_handoff
from hermeslite.context.pressure import Pressure, measure_pressure
from hermeslite.context.secret_calls import with_masked_calls
from hermeslite.context.tokens import estimate_tokens
from hermeslite.context.user_command import user_command_message
from hermeslite.extensions.skills import Skills
from hermeslite.llm.errors import ContextOverflow, LLMError
from hermeslite.llm.model_names import same_model
from hermeslite.llm.types import Completed, RetryNotice, StreamedText
from hermeslite.store.memory import MemoryStore
from hermeslite.store.sessions import SessionInfo
from hermeslite.store.usage import UsageTotals
from hermeslite.tools.base import ApprovalRequest, ToolResult
from hermeslite.tools.protected import protected_paths

from . import events as ev
from .compaction import PAUSE_HINT, ROOM_HINT, TURN_HINT, TURN_STOPPED, Compaction
from .compaction_triggers import CompactionTriggers
from .deps import AgentDeps
from .ledger import TokenLedger, schema_tokens
from .mentions import expand
from .modes import PLAN, PLAN_LINE
from .request_size import RequestSize, RequestTokens, carried_calibration, saved_calibration
from .saving import SessionSaver
from .session_list import SessionRow, session_rows
from .summarizer import BuiltRequest
from .tool_asks import TOOLS_HINT, asks_for_tools
from .tool_runner import ToolRunner, user_command_call
from .turn_repair import CANCELLED_REPLY, INCOMPLETE_REPLY, NO_REPLY, Turn, closing_messages, has_reply
from .window import adopt_stated_window, learned_window_note, settle_window

MAX_REACTIVE = 3
OVERFLOW_GIVE_UP = "context still too large after 3 compactions: " + ROOM_HINT
PAUSED = "Automatic compaction is paused (it refilled within one turn three times in a row): " + PAUSE_HINT


class TurnTooLarge(Exception):
    """A reactive compaction found that the turn in progress does not fit even cut (see `_stop_turn`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Agent:
    """One session's conversation with a model and its tools."""

    def __init__(
        self,
        deps: AgentDeps,
        session_id: str,
        messages: list[dict[str, Any]],
        saver: SessionSaver,
        *,
        interactive: bool,
        notes: Sequence[str] = (),
    ) -> None:
        self.deps = deps
        self.session_id = session_id
        self.messages = messages
        self.notes = tuple(notes)  # for the user, about how the session was opened (rows skipped, ...)
        self.ledger = TokenLedger(messages)
        self.interactive = interactive
        self._subscribers: list[ev.Subscriber] = []
        self.size = RequestSize(self.estimate_request)  # the one count the meter, /context and preflight read
        self.last_sent: BuiltRequest | None = None  # the last turn request the model answered; summaries extend it
        self._schema_cache: tuple[tuple[Any, int, str], int] | None = None
        self.compaction = Compaction(deps, self.emit)
        self.triggers = CompactionTriggers(self)  # when to compact, and landing a pass in this session
        self.tool_runner = ToolRunner(deps, self.emit)
        deps.llm.on_retry = self._retrying
        self.saver = saver  # every write to the session store goes through it
        if interactive:
            deps.tool_ctx.approve = self._ask_approval
        deps.hooks.emit = self.emit
        deps.hooks.messages = lambda: self.messages

    # -- events ----------------------------------------------------------------

    def subscribe(self, subscriber: ev.Subscriber) -> None:
        self._subscribers.append(subscriber)

    @property
    def subscribers(self) -> tuple[ev.Subscriber, ...]:
        return tuple(self._subscribers)

    def emit(self, event: ev.Event) -> None:
        for subscriber in list(self._subscribers):
            subscriber(event)

    def _retrying(self, notice: RetryNotice) -> None:
        self.emit(ev.Retrying(notice.attempt, notice.max_retries, notice.delay, notice.error.brief))

    async def _ask_approval(self, request: ApprovalRequest) -> bool:
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.emit(ev.ApprovalRequested(request, answer))
        return await answer

    # -- transcript ------------------------------------------------------------

    def append(self, message: dict[str, Any]) -> None:
        """Add a complete message: to the transcript, the ledger and the session store; the meter
        moves at once (a long paste shows before the reply does)."""
        self.messages.append(message)
        self.ledger.append(message)
        self.saver.append(message)
        self.emit(ev.PressureChanged(self.pressure()))

    def adopt_transcript(self, messages: list[dict[str, Any]]) -> None:
        """Take a rewritten transcript (a compaction, an undo); the caller saves it and reports the
        new pressure."""
        self.messages = messages
        self.ledger.reset(messages)
        self.size.rewritten()

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Schemas sent with each request; none for a model that cannot call tools."""
        if not self.deps.llm.supports_tools:
            return []
        return self.deps.registry.schemas(without=self.deps.mode.withheld(self.deps.registry))

    def schema_tokens(self) -> int:
        """Tokens the tool schemas (and plan mode's prompt line) add to every request, computed once
        per model, tool set and mode."""
        key = (self.deps.llm, self.deps.registry.generation, self.mode)
        if self._schema_cache is None or self._schema_cache[0] != key:
            line = estimate_tokens([{"role": "system", "content": PLAN_LINE}]) if self.mode == PLAN else 0
            self._schema_cache = (key, schema_tokens(self.tool_schemas()) + line)
        return self._schema_cache[1]

    @property
    def mode(self) -> str:
        """The session's mode: default | accept-edits | plan (agent/modes.py)."""
        return self.deps.mode.name

    def set_mode(self, name: str) -> None:
        """Switch modes (ModeError: unknown, or plan mode without the kernel sandbox); front ends hear
        it as ModeChanged. The transcript is untouched: the mode is state, sent with each request."""
        self.deps.mode.switch(name)
        self.emit(ev.ModeChanged(self.mode))
        self.emit(ev.PressureChanged(self.pressure()))

    def estimate_request(self) -> int:
        """The raw estimate of the next request, transcript plus tool schemas, before calibration."""
        return self.ledger.total + self.schema_tokens()

    def request_size(self) -> RequestTokens:
        """Tokens the next request carries, and which part the provider counted."""
        return self.size.now()

    def request_tokens(self) -> int:
        """The one count: what the meter, /context, the warning bar, preflight and the cards show."""
        return self.size.now().total

    def measure_for(self, compressor: ContextCompressor) -> None:
        """Give the engine what it cannot see: the tool schemas every request carries and the
        calibration, so its budgets and figures are in the meter's units."""
        compressor.request_overhead_tokens = self.schema_tokens()
        compressor.token_scale = self.size.calibration.factor

    def request_tokens_for(self, messages: list[dict[str, Any]]) -> int:
        """What a request carrying `messages` would count on this model (a handoff's new session)."""
        return self.size.calibration.scale(estimate_tokens(messages) + self.schema_tokens())

    def carry_calibration(self, previous: Agent) -> None:
        """After /new, /resume or /handoff: this session's own calibration when it learned one, else
        `previous`'s on the same model (see request_size.carried_calibration)."""
        same = same_model(previous.deps.llm.model, self.deps.llm.model)
        self.size.calibration = carried_calibration(self.size.calibration, previous.size.calibration, same)

    def build_request(self) -> BuiltRequest:
        """The next request as it stands (a snapshot: later appends do not change it)."""
        messages = tuple(self.messages)
        if messages:
            messages = (self.deps.mode.system_message(messages[0]), *messages[1:])
        return BuiltRequest(messages, tuple(self.tool_schemas()), self.request_tokens())

    def pressure(self) -> Pressure:
        c = self.deps.compressor
        return measure_pressure(
            self.request_tokens(), c.threshold_tokens, c.context_length, c.config.warn_at, paused=self.compaction.paused
        )

    # -- the turn --------------------------------------------------------------

    async def run_turn(self, text: str) -> ev.TurnFinished:
        """Answer one user message, running tools until the model replies with text."""
        turn = Turn()
        self.deps.checkpoints.begin_turn(text, self.messages)
        self.compaction.requests = self.compaction.requests.turn_begun()
        try:
            gate = await self.deps.hooks.admit_prompt(text)
            if gate.block is not None:
                finished = ev.TurnFinished(ok=False, reason=f"blocked by a UserPromptSubmit hook: {gate.block}")
            else:
                self.append({"role": "user", "content": self._attach_mentions(gate.content)})
                await self._offer_mcp_tools()
                await self.triggers.preflight()  # nothing of this turn follows its message yet: nothing to stop
                finished = await self._loop(turn)
                await self.triggers.requested(finished)
        except TurnTooLarge as exc:
            finished = self._stop_turn(turn, exc.reason)
        except asyncio.CancelledError:
            self._close_turn(turn, CANCELLED_REPLY)
            finished = ev.TurnFinished(ok=False, cancelled=True, reason="cancelled by the user")
        finished = replace(finished, saved=self.saver.saved)
        if finished.ok and not self.deps.llm.supports_tools and asks_for_tools(text):
            self.emit(ev.Notice(TOOLS_HINT, "warning"))
        self.emit(finished)
        return finished

    def _attach_mentions(self, text: str) -> str:
        """The message with the files it names as `@path` attached, the user told which in one line."""
        budget = min(self.deps.settings.agent.mention_tokens, self.deps.llm.context_window() // 4)
        expansion = expand(text, self.deps.cwd, budget, protected_paths())
        if (note := expansion.note()) is not None:
            self.emit(ev.Notice(note, "warning" if expansion.skipped else "information"))
        return expansion.content

    async def _loop(self, turn: Turn) -> ev.TurnFinished:
        limit = self.deps.settings.agent.max_iterations
        for _ in range(limit):
            completion = await self._call_model(turn)
            if completion is None:
                self._close_turn(turn, INCOMPLETE_REPLY if turn.partial.strip() else NO_REPLY)
                return ev.TurnFinished(ok=False, reason="model error")
            message = completion.message
            calls = message.get("tool_calls") or []
            sent = self.size.reported(completion.usage.prompt_tokens)
            self.append(with_masked_calls(message))  # the tools run on `calls`, as the model made them
            turn.partial = ""
            self.emit(ev.ReplyComplete(content=message.get("content") or "", tool_calls=calls))
            self.deps.usage.record("turn", self.deps.llm.model, completion.usage, estimated=sent)
            if not calls:
                # A Stop hook may send the model back to work, with its reason as a message of ours.
                if (more := await self.deps.hooks.stop(message.get("content") or "")) is None:
                    return ev.TurnFinished(ok=True)
                self.append({"role": "user", "content": more})
            else:
                await self._run_tools(calls, turn)
                if (halt := self.deps.hooks.take_halt()) is not None:
                    self.emit(ev.Notice(f"A hook stopped the turn: {halt}", "warning"))
                    return ev.TurnFinished(ok=False, reason=f"stopped by a hook: {halt}")
            if (too_large := await self.triggers.preflight()) is not None:
                return self._stop_turn(turn, too_large)
        self.emit(ev.ErrorEvent(f"Stopped after {limit} model calls in one turn (agent.max_iterations)."))
        return ev.TurnFinished(ok=False, reason="max iterations")

    async def _call_model(self, turn: Turn):
        """Stream one reply; on context overflow compress and rebuild the request, up to 3 times."""
        refills: int | None = None  # counted once for this request, not once per attempt
        for attempt in range(MAX_REACTIVE + 1):
            try:
                return await self._stream(turn)
            except ContextOverflow as exc:
                turn.partial = ""
                self._adopt_limit(exc)
                if not self.deps.compressor.config.enabled:
                    self.emit(
                        ev.ErrorEvent(f"{exc} Automatic compression is off (compression.enabled: false): {ROOM_HINT}.")
                    )
                    return None
                if attempt == MAX_REACTIVE:
                    self.emit(ev.ErrorEvent(OVERFLOW_GIVE_UP))
                    return None
                if refills is None:
                    paused, refills = self.triggers.refill_check()
                    if paused:
                        self.emit(ev.ErrorEvent(f"{exc} {PAUSED}"))
                        return None
                # The provider refused the request, so a pass that would keep everything is no
                # answer: reactive passes are forced to summarize the middle.
                result = await self.triggers.compact("reactive", force=True, refills=refills)
                if result.turn_overflow:
                    raise TurnTooLarge(result.turn_overflow) from exc
                if result.aborted or not result.changed:
                    self.emit(ev.ErrorEvent(f"{exc} Compression could not make room: {ROOM_HINT}."))
                    return None
            except LLMError as exc:
                self.emit(ev.ErrorEvent(str(exc)))
                return None
        return None

    async def _stream(self, turn: Turn):
        request, completion = self.build_request(), None
        self.size.sending()
        async for event in self.deps.llm.stream(list(request.messages), list(request.tools)):
            if isinstance(event, StreamedText):
                turn.partial += event.text
                self.emit(ev.TextDelta(event.text))
            elif isinstance(event, Completed):
                completion = event.completion
        if completion is not None:
            self.last_sent = request
        return completion

    def _adopt_limit(self, exc: ContextOverflow) -> None:
        """A provider that states its real window is believed, once, and the threshold follows."""
        c = self.deps.compressor
        if adopt_stated_window(exc.limit, self.deps.llm, c, self.saver):
            self.emit(
                ev.Notice(
                    f"The provider's context window is {exc.limit:,} tokens; compaction now starts at "
                    f"{c.threshold_tokens:,}.",
                    "warning",
                )
            )

    # -- tools -----------------------------------------------------------------

    async def _offer_mcp_tools(self) -> None:
        """Fix the MCP tools of the turn that starts (see agent/mcp.py); a run with nobody watching
        waits for servers still starting, while the model's client loads (litellm, ~3 s), so the
        wait costs the first request nothing when the servers are quicker. Failures not yet told
        are told now, a line each."""
        mcp = self.deps.mcp
        if mcp is None:
            return
        if self.interactive:
            await mcp.offer(self.deps.registry, wait=False)
        else:
            loading = asyncio.ensure_future(self.deps.llm.prepare())
            try:
                await mcp.offer(self.deps.registry, wait=True)
                await asyncio.wait({loading})
            finally:
                if not loading.done():
                    loading.cancel()  # the turn was cancelled
                elif not loading.cancelled():
                    loading.exception()  # a failure here is the request's to report, in its own words
        self._tell_mcp_news()
        self.emit(ev.PressureChanged(self.pressure()))

    def _tell_mcp_news(self) -> None:
        if self.deps.mcp is not None:
            for line in self.deps.mcp.servers.take_news():
                self.emit(ev.Notice(line, "warning"))

    def listen_for_mcp_news(self) -> None:
        """Tell MCP server failures as they happen, between turns too (the app calls this on its
        loop for the agent it shows); otherwise they are told at the start of the next turn."""
        mcp = self.deps.mcp
        if mcp is None:
            return
        loop = asyncio.get_running_loop()

        def wake() -> None:  # on the servers' thread
            with suppress(RuntimeError):  # the loop has closed: the app is gone
                loop.call_soon_threadsafe(self._tell_mcp_news)

        mcp.servers.set_reporter(wake)
        self._tell_mcp_news()

    async def _run_tools(self, calls: list[dict[str, Any]], turn: Turn) -> None:
        """Run the calls of one assistant message (see `ToolRunner.run_all`) and add their results
        in call order, each marked answered so a cancellation answers only the rest."""
        turn.pending_calls, turn.answered = calls, set()
        results = await self.tool_runner.run_all(calls)
        images = self.deps.llm.takes_tool_images()
        for call, result in zip(calls, results, strict=True):  # run_all keeps one result per call
            self.append(self.tool_runner.result_message(call, result, images=images))
            turn.answered.add(call["id"])
        turn.pending_calls = None

    def _stop_turn(self, turn: Turn, reason: str) -> ev.TurnFinished:
        """End a turn whose own tool output does not fit the window: compacting again would only
        lose it and have the model run the same tools again."""
        self.emit(ev.ErrorEvent(f"Stopped this turn instead of compacting again: {reason}. {TURN_HINT}"))
        self._close_turn(turn, TURN_STOPPED)
        return ev.TurnFinished(ok=False, reason="the turn's tool output does not fit the context window")

    def _close_turn(self, turn: Turn, note: str) -> None:
        """Leave a valid transcript after a turn ends early (see `closing_messages`)."""
        last_role = self.messages[-1].get("role") if self.messages else None
        for message in closing_messages(turn, last_role, note):
            self.append(message)

    # -- commands from the front end ---------------------------------------------

    def switch_model(self, llm) -> None:
        """Talk to another model from the next request on; a smaller window means the
        next turn's preflight compacts before sending."""
        tools_changed, previous = llm.supports_tools != self.deps.llm.supports_tools, self.deps.llm.model
        self.deps.llm = llm
        llm.on_retry = self._retrying
        if tools_changed:  # "you cannot run tools" must not reach a model that can, nor the reverse
            self.messages[0] = self.deps.system_message(compacted=any(has_handoff(m) for m in self.messages))
            self.ledger.reset(self.messages)
        settle_window(llm, self.saver, self.deps.compressor.config)  # its own learned window, not the old model's
        self.deps.compressor.set_model(llm.model, llm.context_window())
        if not same_model(previous, llm.model):  # its tokenizer: what this session learned on it, if anything
            self.size.model_changed(saved_calibration(self.deps.store, self.session_id, llm.model))
        self.last_sent = None  # the new model's cache holds none of it
        self.emit(ev.PressureChanged(self.pressure()))

    def startup_notes(self) -> list[str]:
        """Lines a front end shows once the agent is ready: that prompt caching is on, and how; that
        the window is one the provider stated in an earlier overflow error."""
        plan = self.deps.llm.cache_plan()
        notes = [plan.describe()] if plan.active else []
        if learned := learned_window_note(self.deps.llm):
            notes.append(f"Context window: {learned}; compaction at {self.deps.compressor.threshold_tokens:,}.")
        return notes

    def instruction_notes(self) -> list[str]:
        """The line a front end shows at start naming the project instruction files (AGENTS.md) the
        system prompt was built with; none when there are none. Their problems are in `notes`."""
        line = self.deps.instructions.summary()
        return [line] if line else []

    def session_usage(self) -> UsageTotals:
        """What this session's model requests have consumed so far (turns, summaries, flushes)."""
        return self.deps.usage.totals

    async def run_user_command(self, command: str) -> ToolResult | None:
        """`!command`: the user's own shell command, run by the terminal tool exactly as a model's
        call would be (approval, output cap, sandbox), its output then added to the transcript as
        a user message for the next turn. No model call. Returns the result, None when cancelled
        (then nothing is added: the user stopped it before it said anything)."""
        self.deps.checkpoints.begin_turn(f"!{command}", self.messages)
        try:
            result = await self.tool_runner.run(user_command_call(command), by_user=True)
        except asyncio.CancelledError:
            self.emit(ev.TurnFinished(ok=False, cancelled=True, reason="cancelled by the user"))
            return None
        self.append(user_command_message(command, result.content, result.exit_code))
        self.emit(ev.TurnFinished(ok=not result.is_error, saved=self.saver.saved))
        return result

    def discard_if_unused(self, *, need_reply: bool = False) -> bool:
        """Delete this session from the store when it holds nothing to come back to: no user
        message (an app opened and closed), or with `need_reply` (a one-shot run that failed) no
        reply from the model either. `--continue` then finds the session before it. True if
        deleted."""
        used = any(m.get("role") == "user" for m in self.messages)
        if used and need_reply:
            used = has_reply(self.messages)
        return not used and self.saver.delete()

    async def compress_now(self, focus: str | None = None, upto: int | None = None):
        """What /compress [--upto N] [focus] runs: forced, with flush and todo snapshot, reported as
        events; with `upto`, user turns 1..N are summarized and the rest kept (see controls.upto_error)."""
        return await self.triggers.compact("manual", focus=focus, force=True, upto=upto)

    # -- queries from the front ends ---------------------------------------------

    @property
    def model_name(self) -> str:
        return self.deps.llm.model

    def session_info(self, session_id: str | None = None) -> SessionInfo | None:
        """The saved record of a session (this one by default): title, model, when; raises StoreError."""
        return self.deps.store.get_session(session_id or self.session_id)

    def list_sessions(self) -> list[SessionRow]:
        """Saved sessions, newest first, this one marked, for /sessions and the /resume picker."""
        return session_rows(self.deps.store, self.session_id)

    def resolve_session(self, prefix: str) -> str:
        """The id of the one saved session `prefix` names; raises SessionNotFound saying why not."""
        return self.deps.store.resolve_id(prefix)

    def todo_text(self) -> str:
        """The todo list as the user reads it."""
        return self.deps.todos.render()

    def todo_entries(self) -> tuple[ev.TodoEntry, ...]:
        """The todo list as items, for a front end that keeps it on screen (a resumed session's too)."""
        return ev.TodoEntry.listing(self.deps.todos.items)

    @property
    def memory(self) -> MemoryStore:
        """What is remembered across sessions (MEMORY.md, USER.md), for the front ends to show."""
        return self.deps.memory

    @property
    def skills(self) -> Skills:
        """The skills found when the session started, and those that could not be loaded, for /skills."""
        return self.deps.skills
