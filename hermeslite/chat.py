"""Running a conversation from the command line: the TUI, one prompt, or a chat on stdin.

This is the glue between the CLI's options and the agent: which session,
which model, which front end. It holds no agent logic.
"""

from __future__ import annotations

import asyncio
import errno
import sys
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hermeslite.agent.session_list import session_rows
from hermeslite.commands.registry import CommandRegistry, is_command
from hermeslite.commands.session_table import session_lines
from hermeslite.config import Settings
from hermeslite.errors import EXIT_INTERRUPTED, Unexpected, UserFacingError
from hermeslite.prompt_input import decode
from hermeslite.resume import SessionChoice, choose_session
from hermeslite.stdin_lines import StdinLines
from hermeslite.store.sessions import SessionStore, default_sessions_path

if TYPE_CHECKING:
    from hermeslite.agent.events import TurnFinished
    from hermeslite.agent.loop import Agent
    from hermeslite.headless import HeadlessPrinter
    from hermeslite.headless_json import JsonPrinter, OutputChoice

# Errors the command line already reports in its own way: a reader gone away ends quietly.
EXPECTED = (UserFacingError, Unexpected, BrokenPipeError)


def run_chat(
    settings: Settings,
    *,
    prompt: str | None,
    model: str | None = None,
    api_base: str | None = None,
    mode: str | None = None,
    continue_latest: bool = False,
    resume: str | None = None,
    notices: tuple[str, ...] = (),
    verbose: bool = False,
    config_found: bool = True,
    output: OutputChoice | None = None,
) -> int:
    """`notices` (config warnings, already on stderr) are repeated inside the TUI, which hides stderr;
    with no config file found (`config_found`) and nothing else naming a model, the TUI offers to
    connect a provider once.

    Closing the store at the end frees the session for other processes (and removes its lock file).
    With `output` json or stream-json (only with a prompt), stdout carries JSON alone, errors included.
    """
    from hermeslite.tools.process_groups import install_exit_cleanup

    install_exit_cleanup()  # tool processes die with hermeslite, however it ends
    structured = _json_printer(output)
    with _reporting(structured), SessionStore(default_sessions_path()) as store:
        choice = choose_session(
            store, settings, continue_latest=continue_latest, resume=resume, model=model, api_base=api_base
        )
        if mode is not None:
            _check_mode(choice.settings, mode)
            choice = replace(choice, mode=mode)
        if prompt is None and sys.stdin.isatty() and sys.stdout.isatty():
            from hermeslite.provider_setup import first_run_due
            from hermeslite.tui import run_tui

            return run_tui(
                choice.settings,
                choice.session_id,
                store=store,
                notices=notices,
                notes=choice.notes,
                model_note=(choice.model_note, choice.model_note_warns) if choice.model_note else None,
                first_run=first_run_due(config_found=config_found, model_named=bool(choice.settings.model.name)),
                mode=choice.mode,
            )
        return _run_headless(store, choice, prompt, verbose, structured)


def _json_printer(output: OutputChoice | None) -> JsonPrinter | None:
    if output is None or not output.structured:
        return None
    from hermeslite.headless_json import JsonPrinter

    return JsonPrinter(sys.stdout, sys.stderr, output)


def _reporting(printer: JsonPrinter | None) -> AbstractContextManager[None]:
    """With JSON output, an error the command line reports also ends the stream with a `result`."""
    if printer is None:
        return nullcontext()
    from hermeslite.headless_json import errors_reported

    return errors_reported(printer)


def _run_headless(
    store: SessionStore, choice: SessionChoice, prompt: str | None, verbose: bool, structured: JsonPrinter | None
) -> int:
    # Imported here so the TUI's first frame does not wait for the agent's modules.
    from hermeslite.agent.factory import build_agent, sandbox_assessment
    from hermeslite.commands.custom import load_commands
    from hermeslite.headless import HeadlessPrinter
    from hermeslite.llm.errors import LLMError
    from hermeslite.tools.workplace import risky_workplace

    settings = choice.settings
    if choice.model_note:  # before the model loads, so a failed load is not a surprise either
        sys.stderr.write(f"hermeslite: {choice.model_note}\n")
    commands = load_commands(Path.cwd())
    try:
        agent = build_agent(
            settings,
            cwd=Path.cwd(),
            interactive=prompt is None and sys.stdin.isatty(),  # a line chat at a terminal asks (line_approval)
            session_id=choice.session_id,
            store=store,
            mode=choice.mode,
        )
    except LLMError as exc:
        raise UserFacingError(str(exc)) from None
    except EXPECTED:
        raise
    except Exception as exc:
        where = f"session {choice.session_id} is unchanged" if choice.session_id else "no session was started"
        raise Unexpected(exc, where) from exc
    for note in choice.notes:
        sys.stderr.write(f"hermeslite: {note}\n")
    for note in (*agent.notes, *commands.problems):
        sys.stderr.write(f"hermeslite: warning: {note}\n")
    printer = structured or HeadlessPrinter(sys.stdout, sys.stderr)
    agent.subscribe(printer)
    if structured is not None:
        from hermeslite.agent.mcp_commands import server_reports

        servers = [{"name": r.status.name, "status": r.status.state.value} for r in server_reports(agent)]
        structured.begin(agent, servers)
    if unconfined := sandbox_assessment(settings, Path.cwd()).warning:
        sys.stderr.write(f"hermeslite: note: {unconfined}\n")
    if agent.mode != "default":
        from hermeslite.agent.modes import mode_line

        sys.stderr.write(f"hermeslite: {mode_line(agent.mode)}\n")
    if workplace := risky_workplace(Path.cwd(), Path.home()):
        sys.stderr.write(f"hermeslite: warning: {workplace}\n")
    if verbose or (prompt is None and sys.stdin.isatty()):  # -p is quiet unless asked: its problems are in notes
        printer.startup(agent.instruction_notes())
    if verbose:
        printer.startup(agent.startup_notes())
    try:
        if prompt is not None:
            finished = asyncio.run(_one_prompt(agent, prompt, commands.registry))
            discarded = False
            if not finished.ok and choice.session_id is None:
                discarded = agent.discard_if_unused(need_reply=True)  # a failed one-shot leaves nothing to --continue
            if printer.reader_gone:
                raise _reader_gone()
            # Ctrl-C: the shell's status for an interrupted program
            code = EXIT_INTERRUPTED if finished.cancelled else 0 if finished.ok and finished.saved else 1
            if structured is not None:
                structured.finish(code, agent.session_usage(), kept=not discarded)
            return code
        return asyncio.run(_repl(agent, settings, store, commands.registry, printer))
    except EXPECTED:
        raise
    except Exception as exc:
        raise Unexpected(exc, _where(agent, new_one_shot=prompt is not None and choice.session_id is None)) from exc
    finally:
        if verbose:
            printer.session_summary(agent.session_usage(), agent.pressure())


def _check_mode(settings: Settings, mode: str) -> None:
    """Refuse `--mode plan` at start, in one line, where the kernel sandbox cannot enforce it."""
    if mode != "plan":
        return
    from hermeslite.agent.factory import sandbox_assessment
    from hermeslite.agent.modes import plan_refusal

    assessed = sandbox_assessment(settings, Path.cwd())
    if assessed.sandbox is None:
        raise UserFacingError(plan_refusal(assessed.warning))


def _where(agent: Agent, *, new_one_shot: bool = False) -> str:
    """Where the session stands after an unexpected error, for the line that reports it. A one-shot
    run on a new session that got no reply leaves nothing to continue, as a failed turn does."""
    if new_one_shot and agent.discard_if_unused(need_reply=True):
        return "the new session had no reply yet and was not kept"
    sid = agent.session_id
    state = "saved" if agent.saver.saved else "saved up to the last message that could be written"
    return f"session {sid} is {state} (hermeslite --resume {sid} continues it)"


def _reader_gone() -> BrokenPipeError:
    """Raised once the turn is saved: the command line ends quietly with SIGPIPE's status (141)."""
    return BrokenPipeError(errno.EPIPE, "the reader of the output went away")


async def _one_prompt(agent: Agent, prompt: str, commands: CommandRegistry) -> TurnFinished:
    from hermeslite.agent.mcp_commands import wait_for_servers
    from hermeslite.commands.mcp_prompts import McpPromptProvider, names_a_server_prompt

    commands.add(McpPromptProvider(lambda: agent))
    try:
        if names_a_server_prompt(prompt):
            await wait_for_servers(agent)
        text = await expanded(prompt, commands)
    except UserFacingError:
        agent.discard_if_unused()  # nothing was sent: a new session stays out of --continue
        raise
    return await agent.run_turn(text)


async def expanded(prompt: str, commands: CommandRegistry) -> str:
    """A `-p` prompt as sent: one that starts with a custom command's name is what the command
    expands to, as Claude Code's `-p "/name args"` does (text piped after it is part of its
    arguments); anything else, built-in command names included, is sent as it is."""
    if not is_command(prompt):
        return prompt
    head, rest = prompt.strip(), ""
    if (cut := next((i for i, c in enumerate(head) if c.isspace()), None)) is not None:
        head, rest = head[:cut], head[cut:]
    command = commands.prompt_command(head[1:])
    if command is None:
        return prompt
    try:
        return await command.expand(rest.strip())
    except Exception as exc:  # e.g. a server that cannot give its prompt: one line, exit 1
        raise UserFacingError(f"{command.spec.slash}: {exc}") from None


async def _repl(
    agent: Agent,
    settings: Settings,
    store: SessionStore,
    commands: CommandRegistry,
    printer: HeadlessPrinter | JsonPrinter,
) -> int:
    """The line chat on stdin (see line_chat.py) until end of input or /quit.

    The exit code is 1 when any turn or command failed, or a turn could not be saved, as
    with `-p`: a script feeding prompts on stdin must be able to tell that an answer is missing.
    An unexpected error names the session open at the time (after /new, not the first one).
    """
    from hermeslite.line_chat import LineChat

    interactive = sys.stdin.isatty()
    if interactive:
        sys.stderr.write(f"hermeslite: session {agent.session_id} ({agent.model_name}). /help for commands.\n")
    from hermeslite.commands.mcp_prompts import McpPromptProvider

    chat = LineChat(agent, settings, store, sys.stdout, sys.stderr, commands)
    commands.add(McpPromptProvider(lambda: chat.agent))  # the agent after /new too
    lines = StdinLines(sys.stdin.fileno())
    if interactive:
        from hermeslite.line_approval import LineApprovals

        agent.subscribe(LineApprovals(lines.readline, sys.stderr, colour=sys.stderr.isatty()))
    number = 0
    try:
        while not chat.done:
            if interactive:
                sys.stderr.write("> ")
                sys.stderr.flush()
            data = await lines.readline()
            number += 1
            line, warning = decode(data, f"line {number} of stdin")
            if warning:
                sys.stderr.write(f"hermeslite: warning: {warning}\n")
            if not line:
                chat.quit()
            elif text := line.strip():
                await chat.handle(text)
            if printer.reader_gone:
                raise _reader_gone()
    except EXPECTED:
        raise
    except Exception as exc:
        raise Unexpected(exc, _where(chat.agent)) from exc
    return 1 if chat.failed else 0


def list_sessions() -> str:
    """The `hermeslite sessions` table: the rows and columns /sessions shows, times in local time."""
    with SessionStore(default_sessions_path()) as store:
        rows = session_rows(store)
    return "\n".join(session_lines(rows)) + "\n"
