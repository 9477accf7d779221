"""The line chat's handlers for the slash commands; the commands themselves are in hermeslite/commands.

Each handler is an async function `(chat, args) -> None` bound to a name of
the registry with `@handlers.bind(name)`; a test checks that every command the
registry gives the line chat has one. The work is done by the agent
(`hermeslite.agent.controls`, `recall`, `model_switch`); a handler parses
its argument and prints the outcome: what was asked for (a view, the
checkpoint, recall results) on stdout, so it can be piped or copied, and
reports on stderr. `/summary edit` opens the checkpoint in $EDITOR on a
temporary file.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hermeslite.commands import views
from hermeslite.commands.registry import LINE, CommandRegistry, Handlers

if TYPE_CHECKING:
    from hermeslite.agent.loop import Agent
    from hermeslite.agent.rewind import Preview
    from hermeslite.config import Settings


class LineSurface(Protocol):
    """The line chat as a handler sees it (implemented by `line_chat.LineChat`)."""

    agent: Agent
    commands: CommandRegistry
    settings: Settings
    listed_models: list[str]  # the names the last `/model` numbered, for `/model N`

    def show(self, text: str) -> None: ...  # stdout: what was asked for

    def show_diff(self, text: str) -> None: ...  # stdout: a unified diff, in colour on a terminal

    def say(self, text: str) -> None: ...  # stderr: a report

    def fail(self, text: str = "") -> None: ...  # stderr (if any), and the chat exits 1 at the end

    def open_session(self, session_id: str | None) -> Agent: ...

    async def switch_model(self, name: str) -> None: ...

    def quit(self) -> None: ...


Handler = Callable[[LineSurface, str], Awaitable[None]]
handlers: Handlers[Handler] = Handlers(LINE)
CHAT_HELP = ("Anything else is sent to the model.", *views.SHELL_HELP)


def help_text(registry: CommandRegistry | None = None) -> str:
    """/help in the line chat: the commands it has, the custom ones, those it lacks, then `!command`."""
    prompts = [c.spec for c in registry.prompt_commands()] if registry else []
    return "\n".join(["Commands", *views.command_lines(LINE, mark_waits=False, prompts=prompts), "", *CHAT_HELP])


@handlers.bind("compress")
async def _compress(chat: LineSurface, args: str) -> None:
    from hermeslite.agent import controls

    parsed = controls.compress_args(args)
    if (error := parsed.error or controls.upto_error(chat.agent, parsed.upto)) is not None:
        chat.fail(error)
        return
    if parsed.preview:
        chat.say("\n".join(controls.preview(chat.agent, parsed.focus, parsed.upto).lines()))
        return
    result = await chat.agent.compress_now(parsed.focus, parsed.upto)
    if result.aborted:
        chat.fail()  # the printer has said why, from the compaction's events


@handlers.bind("uncompress")
async def _uncompress(chat: LineSurface, args: str) -> None:
    from hermeslite.agent import controls

    chat.say(controls.uncompress(chat.agent).text)


@handlers.bind("summary")
async def _summary(chat: LineSurface, args: str) -> None:
    from hermeslite.agent import controls

    if args == "edit":
        await _edit(chat)
    elif args:
        chat.fail("usage: /summary [edit]")
    elif (found := controls.checkpoint(chat.agent)) is None:
        chat.say("No checkpoint yet: nothing has been compacted in this session.")
    else:
        chat.show(found.text)


async def _edit(chat: LineSurface) -> None:
    """The checkpoint in $EDITOR; saved back when it passes the checks. A refused edit stays in
    its file, whose path is given, so the user can fix it."""
    from hermeslite.agent import controls

    found = controls.checkpoint(chat.agent)
    if found is None:
        chat.fail("No checkpoint to edit: nothing has been compacted in this session.")
        return
    editor = os.environ.get("EDITOR", "").strip()
    if not editor:
        chat.fail("/summary edit needs $EDITOR (for example: export EDITOR=nano); the checkpoint is unchanged.")
        return
    fd, name = tempfile.mkstemp(prefix="hermeslite-checkpoint-", suffix=".md")
    path = Path(name)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(found.text + "\n")
    status = await _run_editor(editor, path)
    if status != 0:
        path.unlink(missing_ok=True)
        chat.fail(f"{editor} exited with status {status}; the checkpoint is unchanged.")
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    if text.strip() == found.text.strip():
        path.unlink(missing_ok=True)
        chat.say("No change: the checkpoint is as it was.")
        return
    edit = controls.edit_checkpoint(chat.agent, text)
    if not edit.accepted:
        chat.fail(f"Edit refused, the checkpoint is unchanged: {edit.reason}. Your text is in {path}.")
        return
    path.unlink(missing_ok=True)
    chat.say("Checkpoint replaced: the model reads your version from the next turn on.")


async def _run_editor(editor: str, path: Path) -> int:
    """Run `$EDITOR path` on the terminal and wait; 127 when it cannot be started."""
    try:
        command = [*shlex.split(editor), str(path)]
        done = await asyncio.to_thread(subprocess.run, command, check=False)
    except (OSError, ValueError):
        return 127
    return done.returncode


@handlers.bind("handoff")
async def _handoff(chat: LineSurface, args: str) -> None:
    from hermeslite.agent import controls

    report = await controls.hand_off(chat.agent, args or None)
    if report.session_id is None:
        chat.fail(report.text)
        return
    chat.say(report.text)
    chat.open_session(report.session_id)


@handlers.bind("context")
async def _context(chat: LineSurface, args: str) -> None:
    from hermeslite.agent.breakdown import context_breakdown

    agent = chat.agent
    chat.show(views.context_view(context_breakdown(agent), usage=agent.session_usage(), mode=agent.mode))


@handlers.bind("export")
async def _export(chat: LineSurface, args: str) -> None:
    from hermeslite.agent.export_file import export_session

    report = export_session(chat.agent, args)
    if report.path is None:
        chat.fail(report.text)
    else:
        chat.say(report.text)


@handlers.bind("recall")
async def _recall(chat: LineSurface, args: str) -> None:
    from hermeslite.agent.recall import recall_for_user

    report = await recall_for_user(chat.agent, args)
    if report.ok:
        chat.show(report.text)
    else:
        chat.fail(report.text)


@handlers.bind("rewind")
async def _rewind(chat: LineSurface, args: str) -> None:
    """No N: the turns. N alone: what going back to before it would do. N and a choice: do it; files
    changed by hand since hermeslite last saw them are overwritten only with --force (a line chat has
    no dialog, and its stdin may be a script)."""
    from hermeslite.agent import rewind

    try:
        turn, choice, force = rewind.parse_args(args)
    except ValueError as exc:
        chat.fail(f"/rewind: {exc}. Usage: /rewind [N] [both|code|chat] [--force]")
        return
    if turn is None:
        chat.show(views.turns_view(rewind.turn_rows(chat.agent)))
        return
    try:
        preview = await rewind.preview_rewind(chat.agent, turn, choice or rewind.BOTH)
    except rewind.CannotRewind as exc:
        chat.fail(f"Cannot rewind: {exc}.")
        return
    chat.show("\n".join([f"{preview.title}:", *preview.lines()]))
    if choice is None:
        chat.say(f"Nothing changed yet: /rewind {turn} both|code|chat restores the files and/or the conversation.")
        return
    await _restore(chat, preview, force, f"/rewind {turn} {choice} --force")


@handlers.bind("undo")
async def _undo(chat: LineSurface, args: str) -> None:
    from hermeslite.agent import rewind

    if args.strip() not in ("", "--force"):
        chat.fail("usage: /undo [--force]")
        return
    try:
        preview = await rewind.preview_undo(chat.agent)
    except rewind.CannotRewind as exc:
        chat.fail(f"Nothing undone: {exc}.")
        return
    chat.show("\n".join([f"{preview.title}:", *preview.lines()]))
    await _restore(chat, preview, args.strip() == "--force", "/undo --force")


async def _restore(chat: LineSurface, preview: Preview, force: bool, forced: str) -> None:
    from hermeslite.agent import rewind

    if preview.hand_changed and not force:
        chat.fail(
            f"Nothing restored: {len(preview.hand_changed)} file(s) changed by hand (marked !); {forced} overwrites them."
        )
        return
    report = await rewind.apply(chat.agent, preview, overwrite=force)
    if report.done:
        chat.say(report.text)
    else:
        chat.fail(report.text)


@handlers.bind("diff")
async def _diff(chat: LineSurface, args: str) -> None:
    from hermeslite.agent import rewind

    if args and not args.strip().isdigit():
        chat.fail("usage: /diff [N]  (N: a turn number, as /rewind lists them)")
        return
    report = await rewind.session_diff(chat.agent, int(args) if args else None)
    if report.is_diff:
        chat.say(report.title)
        chat.show_diff(report.text)
    else:
        chat.say(report.text)


@handlers.bind("new")
async def _new(chat: LineSurface, args: str) -> None:
    agent = chat.open_session(None)
    chat.say(views.session_view(agent.session_id, False, None, agent.model_name))


@handlers.bind("resume")
async def _resume(chat: LineSurface, args: str) -> None:
    """With an id (or a unique prefix), go on with that session; without one, list them (the app
    opens a picker instead: a line interface has nothing to pick with)."""
    if not args:
        chat.show(views.sessions_view(chat.agent.list_sessions()))
        return
    session_id = chat.agent.resolve_session(args)
    if session_id == chat.agent.session_id:
        chat.say(f"Session {session_id} is the one open.")
        return
    info = chat.agent.session_info(session_id)
    agent = chat.open_session(session_id)
    chat.say(views.session_view(agent.session_id, True, info.model if info else None, agent.model_name))


@handlers.bind("sessions")
async def _sessions(chat: LineSurface, args: str) -> None:
    chat.show(views.sessions_view(chat.agent.list_sessions()))


@handlers.bind("memory")
async def _memory(chat: LineSurface, args: str) -> None:
    chat.show(views.memory_view(chat.agent.memory))


@handlers.bind("skills")
async def _skills(chat: LineSurface, args: str) -> None:
    chat.show(views.skills_view(chat.agent.skills))


@handlers.bind("todo")
async def _todo(chat: LineSurface, args: str) -> None:
    chat.show(chat.agent.todo_text())


@handlers.bind("init")
async def _init(chat: LineSurface, args: str) -> None:
    """One turn with our prompt; the printer shows the reply and then what became of the file."""
    from hermeslite.agent import init_project

    finished = await init_project.run(chat.agent, init_project.plan(chat.agent, args))
    if not finished.ok or not finished.saved:
        chat.fail()


@handlers.bind("model")
async def _model(chat: LineSurface, args: str) -> None:
    """No name: the model in use and a numbered list to pick from; `/model N` or a name switches."""
    agent = chat.agent
    if not args:
        await _list_models(chat)
        return
    if args.isdigit():
        if not 1 <= int(args) <= len(chat.listed_models):
            chat.fail(f"No model {args} in the list: /model numbers the models, then /model N picks one.")
            return
        args = chat.listed_models[int(args) - 1]
    await chat.switch_model(args)
    window = agent.pressure()
    chat.say(
        views.switched_view(
            agent.model_name, window.context_length, window.threshold, agent.request_tokens() >= window.threshold
        )
    )
    for line in agent.startup_notes():
        chat.say(line)


async def _list_models(chat: LineSurface) -> None:
    from hermeslite.agent.model_list import model_choices, short_list
    from hermeslite.commands.model_table import numbered_list

    window = chat.agent.pressure()
    chat.say(views.model_view(chat.agent.model_name, window.context_length, window.threshold))
    choices = short_list(await model_choices(chat.agent, chat.settings.model))
    chat.listed_models = [choice.name for choice in choices]
    chat.show(numbered_list(choices))


@handlers.bind("mcp")
async def _mcp(chat: LineSurface, args: str) -> None:
    from hermeslite.agent import mcp_commands
    from hermeslite.commands.mcp_view import mcp_view

    word, _, name = args.partition(" ")
    if not args:
        chat.show(mcp_view(mcp_commands.server_reports(chat.agent), mcp_commands.logs_folder()))
    elif word == "restart" and name.strip():
        ready, line = await mcp_commands.restart_server(chat.agent, name.strip())
        if ready:
            chat.say(line)
        else:
            chat.fail(line)
    else:
        chat.fail("usage: /mcp shows the MCP servers, /mcp restart NAME restarts one")


@handlers.bind("help")
async def _help(chat: LineSurface, args: str) -> None:
    chat.say(help_text(chat.commands))


@handlers.bind("quit")
async def _quit(chat: LineSurface, args: str) -> None:
    chat.quit()


@handlers.bind("mode")
async def _mode(chat: LineSurface, args: str) -> None:
    from hermeslite.agent.modes import mode_command

    ok, text = mode_command(chat.agent, args)
    if ok:
        chat.say(text)
    else:
        chat.fail(text)
