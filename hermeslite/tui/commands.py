"""The slash commands: one registry feeds the parser, /help, the dropdown and the Ctrl+P palette.

Each command is a plain async function `(app, args) -> None` registered with
its name, argument hint and one-line help, so adding a command is one
decorated function and every place that lists commands picks it up. Unknown
names get the closest match (difflib), because a typo should cost one glance.
Commands talk to the app through its small public surface (host, chat,
header_bar, show_agent, show_view, start_compress, send, ...).

A command that changes what the agent works on (compacting, switching the
session or the model) `waits`: typed during a turn, it is queued like a
message and runs when the turn ends. The others only show something and run
at once. A line starting with `!` is not a command but the user's own shell
command (see `Agent.run_user_command`).
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from . import views

if TYPE_CHECKING:
    from .app import HermesApp

Handler = Callable[["HermesApp", str], Awaitable[None]]


@dataclass(frozen=True)
class SlashCommand:
    name: str                    # without the slash
    args: str                    # hint such as "[focus]"; "" when the command takes none
    help: str                    # one line, shown by /help, the dropdown and the palette; it must read
                                 # right without the argument (the palette runs commands without one)
    run: Handler
    aliases: tuple[str, ...] = field(default=())
    waits: bool = False          # needs an idle agent: queued while a turn runs

    @property
    def slash(self) -> str:
        return f"/{self.name}"


REGISTRY: dict[str, SlashCommand] = {}


def command(name: str, args: str = "", help: str = "", aliases: tuple[str, ...] = (),
            waits: bool = False) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        REGISTRY[name] = SlashCommand(name, args, help, fn, aliases, waits)
        return fn
    return register


class UnknownCommand(Exception):
    """`str()` is the helpful message: the closest command, and where the list is."""


def lookup(name: str) -> SlashCommand | None:
    name = name.lower()
    return REGISTRY.get(name) or next((c for c in REGISTRY.values() if name in c.aliases), None)


def closest(name: str) -> str | None:
    names = list(REGISTRY) + [a for c in REGISTRY.values() for a in c.aliases]
    prefixed = [n for n in REGISTRY if n.startswith(name.lower())] if name else []
    if len(prefixed) == 1:
        return prefixed[0]
    match = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.5)
    return (lookup(match[0]).name if match else None)  # type: ignore[union-attr]  # a close match is a name or alias, so it looks up


def is_command(text: str) -> bool:
    """A message starting with a path (`/etc/hosts is empty`) is a message, not a command."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return first.startswith("/") and "/" not in first[1:]


def waits_for_turn(text: str) -> bool:
    """Whether `text` must wait for the running turn: messages, `!commands` and commands that
    change the session do; commands that only show something, and unknown ones, do not."""
    if not is_command(text):
        return True
    head = text.strip().split(maxsplit=1)[0]
    found = lookup(head[1:])
    return found is not None and found.waits


def parse(text: str) -> tuple[SlashCommand, str]:
    """(`command`, argument text) for `/name args`; raises UnknownCommand."""
    head, _, rest = text.strip().partition(" ")
    name = head[1:]
    found = lookup(name)
    if found is None:
        guess = closest(name)
        hint = f" Did you mean /{guess}?" if guess else ""
        raise UnknownCommand(f"Unknown command {head}.{hint} Type /help for the list.")
    return found, rest.strip()


def entries() -> list[tuple[str, str, str]]:
    """(slash name, argument hint, help) for the dropdown."""
    return [(c.slash, c.args, c.help) for c in REGISTRY.values()]


def help_entries() -> list[tuple[str, str, str, bool]]:
    """(slash name, argument hint, help, waits) for /help."""
    return [(c.slash, c.args, c.help, c.waits) for c in REGISTRY.values()]


# Palette entries for an argument that makes a command do something else (the palette passes none).
PALETTE_VARIANTS = (
    ("/compress --preview", "show what /compress would do: nothing is sent or changed"),
    ("/summary edit", "edit the checkpoint the model reads"),
)


def system_commands(app: HermesApp) -> Iterable[SystemCommand]:
    """The same commands in the Ctrl+P palette, run without arguments (queued during a turn if they wait)."""
    for c in REGISTRY.values():
        yield SystemCommand(c.slash, c.help, partial(app.send, c.slash))
    for text, help in PALETTE_VARIANTS:
        yield SystemCommand(text, help, partial(app.send, text))


# -- the commands ------------------------------------------------------------------


@command("compress", "[--preview] [focus]",
         "compact the conversation now; a focus topic is kept in most detail; --preview only shows what it would do",
         waits=True)
async def _compress(app: HermesApp, args: str) -> None:
    from hermeslite.agent import controls

    focus, preview = controls.compress_args(args)
    if not preview:
        app.start_compress(focus)
        return
    agent = await app.host.ready()
    app.show_view("Compress preview", "\n".join(controls.preview(agent, focus).lines()))


@command("uncompress", "", "undo the latest compaction; messages added since are kept", waits=True)
async def _uncompress(app: HermesApp, args: str) -> None:
    from hermeslite.agent import controls

    report = controls.uncompress(await app.host.ready())
    await app.chat.add_note(report.text, kind="information" if report.done else "warning")


@command("summary", "[edit]", "show the checkpoint the model reads (c copies); edit changes it", waits=True)
async def _summary(app: HermesApp, args: str) -> None:
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
        app.push_screen(CheckpointViewer(found.text),
                        lambda choice: edit_checkpoint(app, agent, found.text) if choice == "edit" else None)


def edit_checkpoint(app: HermesApp, agent, text: str) -> None:
    """The editor on `text`; saving goes through the same checks as a model's summary."""
    from hermeslite.agent import controls

    from .screens.checkpoint import CheckpointEditor

    def save(new_text: str) -> str | None:
        return controls.edit_checkpoint(agent, new_text).reason

    def done(saved: bool | None) -> None:
        note = ("Checkpoint replaced: the model reads your version from the next turn on." if saved
                else "The checkpoint is unchanged.")
        app.run_worker(app.chat.add_note(note), group="ui")
    app.push_screen(CheckpointEditor(text, save), done)


@command("handoff", "[focus]", "go on in a new session seeded with a fresh checkpoint, the todos and the latest "
         "turn; a focus topic is kept in most detail", waits=True)
async def _handoff(app: HermesApp, args: str) -> None:
    from hermeslite.agent import controls

    async def hand_off() -> None:
        report = await controls.hand_off(await app.host.ready(), args or None)
        if report.session_id is None:
            await app.report_error(report.text)
            return
        await switch_session(app, report.session_id)
        await app.chat.add_note(report.text)

    app.run_in_turn(hand_off, "handing off", "the handoff stopped; no session was created")


@command("context", "", "where the tokens go, against window and threshold; cache hits and cost")
async def _context(app: HermesApp, args: str) -> None:
    from hermeslite.agent.breakdown import context_breakdown

    agent = await app.host.ready()
    app.show_view("Context", views.context_view(context_breakdown(agent), usage=agent.session_usage()))


async def switch_session(app: HermesApp, session_id: str | None) -> None:
    """/new (None) or /resume <id>: a new agent on the same model and store.

    A resumed session goes on with the app's model; the note says so when it was
    recorded with another one.
    """
    info = (await app.host.ready()).deps.store.get_session(session_id) if session_id else None
    agent = await app.host.build(session_id)
    await app.chat.clear()
    await app.show_agent(agent, replay_transcript=session_id is not None)
    note = f"{'Resumed' if session_id else 'New'} session {agent.session_id}."
    model = agent.deps.llm.model
    if info is not None and info.model and info.model != model:
        note += f" It was recorded with {info.model} and goes on with {model} (/model {info.model} switches)."
    await app.chat.add_note(note)


@command("recall", "<words|id>", "search what compaction removed from this session; an id shows one original")
async def _recall(app: HermesApp, args: str) -> None:
    from hermeslite.agent.recall import recall_for_user

    report = await recall_for_user(await app.host.ready(), args)
    if report.ok:
        app.show_view(report.title, report.text)
    else:
        await app.report_error(report.text)


@command("new", "", "start a new session (this one stays saved)", waits=True)
async def _new(app: HermesApp, args: str) -> None:
    await switch_session(app, None)


@command("resume", "[id]", "resume a saved session, by id or from a list", waits=True)
async def _resume(app: HermesApp, args: str) -> None:
    agent = await app.host.ready()
    store = agent.deps.store
    if args:
        await switch_session(app, store.resolve_id(args))
        return
    from .screens.session_picker import SessionPicker

    def chosen(session_id: str | None) -> None:
        if session_id and session_id != agent.session_id:
            app.call_later(app.send, f"/resume {session_id}")
    app.push_screen(SessionPicker(store.list_sessions(), agent.session_id), chosen)


@command("sessions", "", "list saved sessions, newest first, with where a handed-off one came from")
async def _sessions(app: HermesApp, args: str) -> None:
    agent = await app.host.ready()
    app.show_view("Sessions", views.sessions_view(agent.deps.store.list_sessions(), agent.session_id))


@command("memory", "", "show MEMORY.md and USER.md")
async def _memory(app: HermesApp, args: str) -> None:
    agent = await app.host.ready()
    app.show_view("Memory", views.memory_view(agent.deps.memory))


@command("todo", "", "show the todo list")
async def _todo(app: HermesApp, args: str) -> None:
    agent = await app.host.ready()
    app.show_view("Todo", views.todo_view(agent.deps.todos))


@command("model", "[name]", "show the model, or switch to the one named", waits=True)
async def _model(app: HermesApp, args: str) -> None:
    if not args:
        agent = await app.host.ready()
        c = agent.deps.compressor
        await app.chat.add_note(f"Model {agent.deps.llm.model} · window {c.context_length:,} tokens · "
                                f"compaction at {c.threshold_tokens:,}. /model <name> switches.")
        return
    llm = await app.host.switch_model(args)
    agent, c = app.host.agent, app.host.agent.deps.compressor
    app.header_bar.model = llm.model
    note = f"Switched to {llm.model}: window {c.context_length:,} tokens, compaction at {c.threshold_tokens:,}."
    if agent.request_tokens() >= c.threshold_tokens:
        note += " The next turn compacts first (preflight)."
    await app.chat.add_note(note)
    for line in agent.startup_notes():
        await app.chat.add_note(line)
    if warning := app.host.window_warning():
        app.notify(warning, severity="warning", markup=False)


@command("help", "", "commands and keys")
async def _help(app: HermesApp, args: str) -> None:
    app.show_view("Help", views.help_view(help_entries()))


@command("quit", "", "leave; the session is already saved", aliases=("exit",))
async def _quit(app: HermesApp, args: str) -> None:
    app.exit(0)
