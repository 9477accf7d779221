"""The app's handlers for the slash commands; the commands themselves are in hermeslite/commands.

Each handler is a plain async function `(app, args) -> None` bound to a
name of the registry with `@handlers.bind(name)`, so the names, argument hints
and help the dropdown, the Ctrl+P palette and /help show all come from the
registry, and a test checks that every command the registry gives the app
has a handler here. Handlers talk to the app through `CommandSurface`.

A command that `waits` (it changes what the agent works on) is queued like
a message when typed during a turn and runs when the turn ends; the others
only show something and run at once. A line starting with `!` is not a
command but the user's own shell command (see `Agent.run_user_command`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from hermeslite.commands import views
from hermeslite.commands.registry import TUI, CommandRegistry, Handlers, available

from .views import help_view

if TYPE_CHECKING:
    from hermeslite.agent.loop import Agent
    from hermeslite.agent.rewind import Preview

    from .surface import CommandSurface

Handler = Callable[["CommandSurface", str], Awaitable[None]]
handlers: Handlers[Handler] = Handlers(TUI)


def entries(registry: CommandRegistry) -> list[tuple[str, str, str]]:
    """(slash name, argument hint, help) for the dropdown: the built-in commands, then the custom ones."""
    return [(c.slash, c.args, c.help) for c in available(TUI, registry.specs())]


def system_commands(app: CommandSurface) -> Iterable[SystemCommand]:
    """The same commands in the Ctrl+P palette, run without arguments (queued during a turn if they wait);
    a variant (`/compress --preview`) is an entry of its own, since the palette passes no argument."""
    for c in available(TUI, app.commands.specs()):
        yield SystemCommand(c.slash, c.help, partial(app.turns.send, c.slash))
    for c in available(TUI):
        for v in c.variants:
            yield SystemCommand(f"{c.slash} {v.word}", v.help, partial(app.turns.send, f"{c.slash} {v.word}"))


# -- the commands ------------------------------------------------------------------


@handlers.bind("compress")
async def _compress(app: CommandSurface, args: str) -> None:
    from hermeslite.agent import controls

    parsed = controls.compress_args(args)
    if parsed.error is not None:
        await app.chat.add_note(parsed.error, kind="warning")
        return
    if not parsed.preview:
        app.turns.start_compress(parsed.focus, parsed.upto)
        return
    agent = await app.host.ready()
    if (error := controls.upto_error(agent, parsed.upto)) is not None:
        await app.chat.add_note(error, kind="warning")
        return
    app.show_view("Compress preview", "\n".join(controls.preview(agent, parsed.focus, parsed.upto).lines()))


@handlers.bind("uncompress")
async def _uncompress(app: CommandSurface, args: str) -> None:
    from hermeslite.agent import controls

    report = controls.uncompress(await app.host.ready())
    await app.chat.add_note(report.text, kind="information" if report.done else "warning")


@handlers.bind("summary")
async def _summary(app: CommandSurface, args: str) -> None:
    from hermeslite.agent import controls

    from .screens.checkpoint import CheckpointViewer

    agent = await app.host.ready()
    found = controls.checkpoint(agent)
    if found is None:
        await app.chat.add_note("No checkpoint yet: nothing has been compacted in this session.")
    elif args == "edit":
        edit_checkpoint(app, agent, found.text)
    elif args:
        await app.chat.add_note("Usage: /summary shows the checkpoint, /summary edit changes it.", kind="warning")
    else:
        app.push_screen(
            CheckpointViewer(found.text),
            lambda choice: edit_checkpoint(app, agent, found.text) if choice == "edit" else None,
        )


def edit_checkpoint(app: CommandSurface, agent, text: str) -> None:
    """The editor on `text`; saving goes through the same checks as a model's summary."""
    from hermeslite.agent import controls

    from .screens.checkpoint import CheckpointEditor

    def save(new_text: str) -> str | None:
        return controls.edit_checkpoint(agent, new_text).reason

    def done(saved: bool | None) -> None:
        note = (
            "Checkpoint replaced: the model reads your version from the next turn on."
            if saved
            else "The checkpoint is unchanged."
        )
        app.run_worker(app.chat.add_note(note), group="ui")

    app.push_screen(CheckpointEditor(text, save), done)


@handlers.bind("handoff")
async def _handoff(app: CommandSurface, args: str) -> None:
    from hermeslite.agent import controls

    async def hand_off() -> None:
        report = await controls.hand_off(await app.host.ready(), args or None)
        if report.session_id is None:
            await app.report_error(report.text)
            return
        await switch_session(app, report.session_id, fresh=True)
        await app.chat.add_note(report.text)

    app.turns.run_in_turn(hand_off, "handing off", "the handoff stopped; no session was created")


@handlers.bind("context")
async def _context(app: CommandSurface, args: str) -> None:
    from hermeslite.agent.breakdown import context_breakdown

    agent = await app.host.ready()
    app.show_view("Context", views.context_view(context_breakdown(agent), usage=agent.session_usage(), mode=agent.mode))


async def switch_session(app: CommandSurface, session_id: str | None, *, fresh: bool = False) -> None:
    """/new (None) or /resume <id>: a new agent on the same model and store. `fresh`: the session
    was created just now (a handoff's), so it is announced as new, not as resumed.

    A resumed session goes on with the app's model; the note says so when it was
    recorded with another one.
    """
    info = (await app.host.ready()).session_info(session_id) if session_id else None
    agent = await app.host.build(session_id)
    await app.chat.clear()
    await app.show_agent(agent, replay_transcript=session_id is not None)
    model = agent.model_name
    resumed = session_id is not None and not fresh
    note = views.session_view(agent.session_id, resumed, info.model if info else None, model)
    await app.chat.add_note(note)


@handlers.bind("recall")
async def _recall(app: CommandSurface, args: str) -> None:
    from hermeslite.agent.recall import recall_for_user

    report = await recall_for_user(await app.host.ready(), args)
    if report.ok:
        app.show_view(report.title, report.text)
    else:
        await app.report_error(report.text)


@handlers.bind("rewind")
async def _rewind(app: CommandSurface, args: str) -> None:
    """No N: the turn picker; N: what goes back; N and a choice: the preview to confirm. Each step
    sends the next as a command, so a step typed by hand does the same."""
    from hermeslite.agent import rewind

    from .screens.rewind import RewindChoice, TurnPicker

    try:
        turn, choice, force = rewind.parse_args(args)
    except ValueError as exc:
        await app.chat.add_note(f"/rewind: {exc}. Usage: /rewind [N] [both|code|chat]", kind="warning")
        return
    agent = await app.host.ready()
    if turn is None:
        app.push_screen(TurnPicker(rewind.turn_rows(agent)), lambda n: _send(app, f"/rewind {n}") if n else None)
        return
    if choice is None:
        text = next((row.text for row in rewind.turn_rows(agent) if row.number == turn), None)
        if text is None:
            await app.chat.add_note(f"There is no turn {turn}: /rewind lists them.", kind="warning")
            return
        app.push_screen(RewindChoice(turn, text), lambda what: _chosen(app, agent, turn, what))
        return
    try:
        preview = await rewind.preview_rewind(agent, turn, choice)
    except rewind.CannotRewind as exc:
        await app.chat.add_note(f"Cannot rewind: {exc}.", kind="warning")
        return
    await confirm_restore(app, agent, preview, force)


@handlers.bind("export")
async def _export(app: CommandSurface, args: str) -> None:
    from hermeslite.agent.export_file import export_session

    report = export_session(await app.host.ready(), args)
    await app.chat.add_note(report.text, kind="information" if report.path else "warning")


@handlers.bind("undo")
async def _undo(app: CommandSurface, args: str) -> None:
    from hermeslite.agent import rewind

    agent = await app.host.ready()
    try:
        preview = await rewind.preview_undo(agent)
    except rewind.CannotRewind as exc:
        await app.chat.add_note(f"Nothing undone: {exc}.", kind="warning")
        return
    await confirm_restore(app, agent, preview, args == "--force")


def _send(app: CommandSurface, text: str) -> None:
    app.call_later(app.turns.send, text)


def _chosen(app: CommandSurface, agent: Agent, turn: int, what: str | None) -> None:
    """The rewind choice: on to its preview; "summarize up to here" sends the `/compress --upto` that
    covers the turn (numbered as the transcript now counts user turns), or says why there is none."""
    from hermeslite.agent.controls import upto_for_turn

    from .screens.rewind import SUMMARIZE

    if what != SUMMARIZE:
        if what:
            _send(app, f"/rewind {turn} {what}")
        return
    try:
        upto = upto_for_turn(agent, turn)
    except ValueError as exc:
        app.run_worker(app.chat.add_note(f"Cannot summarize up to turn {turn}: {exc}.", kind="warning"), group="ui")
        return
    _send(app, f"/compress --upto {upto}")


async def confirm_restore(app: CommandSurface, agent: Agent, preview: Preview, force: bool = False) -> None:
    """The preview in a dialog; restored only when confirmed (files changed by hand only with `o`)."""
    from .screens.rewind import OVERWRITE, RestoreConfirm

    if preview.empty and not preview.undo:
        await app.chat.add_note(" ".join(preview.lines()[2:]) or "Nothing to restore.")
        return
    if force:
        await apply_restore(app, agent, preview, overwrite=True)
        return

    def decided(answer: str | None) -> None:
        if answer:
            app.run_worker(apply_restore(app, agent, preview, overwrite=answer == OVERWRITE), group="session")
        else:
            app.run_worker(app.chat.add_note("Nothing restored."), group="ui")

    app.push_screen(RestoreConfirm(f"{preview.title}?", preview.lines(), preview.hand_changed), decided)


async def apply_restore(app: CommandSurface, agent: Agent, preview: Preview, *, overwrite: bool) -> None:
    """Restore, then show the conversation as it now is (if it went back) with the turn's text in the
    input, ready to edit and send again."""
    from hermeslite.agent import rewind

    report = await rewind.apply(agent, preview, overwrite=overwrite)
    if report.prompt is not None:
        await app.chat.clear()
        await app.show_agent(agent, replay_transcript=True)
        app.offer_draft(report.prompt)
    await app.chat.add_note(report.text, kind="information" if report.done else "warning")


@handlers.bind("diff")
async def _diff(app: CommandSurface, args: str) -> None:
    from hermeslite.agent import rewind

    from .screens.diff_viewer import DiffViewer

    if args and not args.strip().isdigit():
        await app.chat.add_note("Usage: /diff [N] (N: a turn number, as /rewind lists them)", kind="warning")
        return
    report = await rewind.session_diff(await app.host.ready(), int(args) if args else None)
    if report.is_diff:
        app.push_screen(DiffViewer(report.title, report.text))
    else:
        await app.chat.add_note(report.text)


@handlers.bind("new")
async def _new(app: CommandSurface, args: str) -> None:
    await switch_session(app, None)


@handlers.bind("resume")
async def _resume(app: CommandSurface, args: str) -> None:
    agent = await app.host.ready()
    if args:
        await switch_session(app, agent.resolve_session(args))
        return
    from .screens.session_picker import SessionPicker

    def chosen(session_id: str | None) -> None:
        if session_id and session_id != agent.session_id:
            app.call_later(app.turns.send, f"/resume {session_id}")

    app.push_screen(SessionPicker(agent.list_sessions()), chosen)


@handlers.bind("sessions")
async def _sessions(app: CommandSurface, args: str) -> None:
    agent = await app.host.ready()
    app.show_view("Sessions", views.sessions_view(agent.list_sessions()), table=True)


@handlers.bind("memory")
async def _memory(app: CommandSurface, args: str) -> None:
    agent = await app.host.ready()
    app.show_view("Memory", views.memory_view(agent.memory))


@handlers.bind("skills")
async def _skills(app: CommandSurface, args: str) -> None:
    agent = await app.host.ready()
    app.show_view("Skills", views.skills_view(agent.skills))


@handlers.bind("todo")
async def _todo(app: CommandSurface, args: str) -> None:
    agent = await app.host.ready()
    app.show_view("Todo", agent.todo_text())


@handlers.bind("init")
async def _init(app: CommandSurface, args: str) -> None:
    """A turn with our prompt (shown as the user's message, as it is saved); then what became of the file."""
    from hermeslite.agent import init_project

    async def init() -> None:
        agent = await app.host.ready()
        plan = init_project.plan(agent, args)
        await app.chat.add_user(plan.prompt)
        await init_project.run(agent, plan)

    app.turns.run_in_turn(init, "surveying the project", "/init stopped")


@handlers.bind("model")
async def _model(app: CommandSurface, args: str) -> None:
    if not args:
        await _pick_model(app)
        return
    llm = await app.host.switch_model(args)
    agent = await app.host.ready()
    window = agent.pressure()
    app.header_bar.model, app.header_bar.origin = llm.model, ""
    await app.chat.add_note(
        views.switched_view(
            llm.model, window.context_length, window.threshold, agent.request_tokens() >= window.threshold
        )
    )
    for line in agent.startup_notes():
        await app.chat.add_note(line)
    if warning := app.host.window_warning():
        await app.show_notice(warning)


async def _pick_model(app: CommandSurface) -> None:
    """The picker over the models to switch to; the one picked goes through `/model NAME`'s checks."""
    from hermeslite.agent.model_list import model_choices

    from .screens.model_picker import ModelPicker

    agent = await app.host.ready()
    window = agent.pressure()
    current = views.model_view(agent.model_name, window.context_length, window.threshold)

    def chosen(name: str | None) -> None:
        if name and name != agent.model_name:
            app.call_later(app.turns.send, f"/model {name}")

    app.push_screen(ModelPicker(lambda: model_choices(agent, app.host.settings.model), current), chosen)


@handlers.bind("mcp")
async def _mcp(app: CommandSurface, args: str) -> None:
    from hermeslite.agent import mcp_commands
    from hermeslite.commands.mcp_view import mcp_view

    agent = await app.host.ready()
    word, _, name = args.partition(" ")
    if not args:
        reports = mcp_commands.server_reports(agent)
        app.show_view("MCP servers", mcp_view(reports, mcp_commands.logs_folder()))
    elif word == "restart" and name.strip():
        await app.chat.add_note(f"Restarting MCP server {name.strip()}…")
        ready, line = await mcp_commands.restart_server(agent, name.strip())
        await app.chat.add_note(line, kind="information" if ready else "warning")
    else:
        await app.chat.add_note("Usage: /mcp shows the MCP servers, /mcp restart NAME restarts one.", kind="warning")


@handlers.bind("help")
async def _help(app: CommandSurface, args: str) -> None:
    app.show_view("Help", help_view(app.commands))


@handlers.bind("quit")
async def _quit(app: CommandSurface, args: str) -> None:
    app.exit(0)


@handlers.bind("mode")
async def _mode(app: CommandSurface, args: str) -> None:
    from hermeslite.agent.modes import mode_command

    ok, text = mode_command(await app.host.ready(), args)
    if ok:
        await app.chat.add_note(text)
    else:
        await app.report_error(text)
