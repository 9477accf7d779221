"""The one list of slash commands: names, argument hints, help, and which front ends have each.

Every place that names commands reads this table: the TUI's dropdown, its
Ctrl+P palette and /help, the line chat's parser and /help, and the
suggestion for a mistyped name. A front end binds its own handler to each
name (the app shows a view where the line chat prints lines), but never
keeps a list of its own, so a command added here reaches every front end
or fails a test there. A command that one front end cannot offer says so
in `front_ends`, and that front end's /help lists it as missing.

Commands whose text comes from outside the code (the user's command files,
an MCP server's prompts) are `PromptCommand`s from `CommandProvider`s. Running
one sends the text it expands to as the user's message; they need no handler.
A `CommandRegistry` is one front end's whole list: the built-in table, then
each provider's commands, with a built-in name never taken by a provider.

`-p` (headless) takes one prompt and no built-in commands: it is not a
front end here, but a prompt that starts with a prompt command's name is
expanded, as Claude Code does. Scripts run the built-in commands by piping
lines into the line chat.
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

TUI = "tui"
LINE = "line"
FRONT_ENDS = {TUI: "the app", LINE: "the line chat"}
EVERYWHERE = frozenset(FRONT_ENDS)


@dataclass(frozen=True)
class Variant:
    """An argument that makes a command do something else, listed on its own (palette, user guide)."""

    word: str  # e.g. "--preview"
    args: str  # what may follow it, e.g. "[focus]"
    help: str


@dataclass(frozen=True)
class CommandSpec:
    name: str  # without the slash
    args: str  # hint such as "[focus]"; "" when the command takes none
    help: str  # one line for /help, the dropdown and the palette; it must read right
    # without the argument (the palette runs commands without one)
    aliases: tuple[str, ...] = ()
    # what other chat agents call it (/clear, /status, /rollback): only suggested, never run, since
    # theirs may do something else
    known_as: tuple[str, ...] = ()
    waits: bool = False  # changes the session: typed during a turn, it waits for the turn to end
    front_ends: frozenset[str] = EVERYWHERE
    variants: tuple[Variant, ...] = field(default=())

    @property
    def slash(self) -> str:
        return f"/{self.name}"

    @property
    def usage(self) -> str:
        return f"{self.slash} {self.args}".strip()

    def usages(self) -> list[str]:
        """The command and each variant, as a user types them: the rows of the user guide's table (docs/guide.md)."""
        return [self.usage] + [f"{self.slash} {v.word} {v.args}".strip() for v in self.variants]

    def available_in(self, front_end: str) -> bool:
        return front_end in self.front_ends


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "compress",
        "[--preview] [--upto N] [focus]",
        "compact the conversation now; a focus topic is kept in most detail; --preview only shows what it would do",
        known_as=("compact",),
        waits=True,
        variants=(
            Variant("--preview", "[focus]", "show what /compress would do: nothing is sent or changed"),
            Variant("--upto", "N [focus]", "compact user turns 1 to N only; the turns after N stay verbatim"),
        ),
    ),
    CommandSpec(
        "uncompress",
        "",
        "undo the latest compaction; messages added since are kept",
        known_as=("uncompact",),
        waits=True,
    ),
    CommandSpec(
        "summary",
        "[edit]",
        "show the checkpoint the model reads; edit changes it",
        waits=True,
        variants=(Variant("edit", "", "edit the checkpoint the model reads"),),
    ),
    CommandSpec(
        "handoff",
        "[focus]",
        "go on in a new session seeded with a fresh checkpoint, the todos and the "
        "latest turn; a focus topic is kept in most detail",
        waits=True,
    ),
    CommandSpec(
        "context",
        "",
        "where the tokens go, against window and threshold; cache hits and cost",
        known_as=("status", "cost", "usage", "tokens"),
    ),
    CommandSpec("recall", "<words|id>", "search what compaction removed from this session; an id shows one original"),
    CommandSpec(
        "rewind",
        "[N] [both|code|chat]",
        "take the files, the conversation or both back to just before a turn; without N, pick the turn",
        known_as=("restore", "rollback", "checkpoint", "revert"),
        waits=True,
    ),
    CommandSpec("undo", "", "take back the file changes of the last turn that made any", waits=True),
    CommandSpec("diff", "[N]", "what this session changed in the files, since it started or since turn N"),
    CommandSpec("new", "", "start a new session (this one stays saved)", known_as=("clear", "reset"), waits=True),
    CommandSpec(
        "resume", "[id]", "resume a saved session, by id or from a list", known_as=("continue", "load"), waits=True
    ),
    CommandSpec("sessions", "", "list saved sessions, newest first, with where a handed-off one came from"),
    CommandSpec(
        "export",
        "[file]",
        "write this whole session (compacted turns and checkpoints included) to a file: .md, .json or .html by "
        "its suffix; without one, Markdown in the project directory",
        known_as=("save", "share"),
        waits=True,
    ),
    CommandSpec(
        "mcp",
        "[restart NAME]",
        "MCP servers: state, tools and what their schemas cost in tokens, the last error",
        variants=(Variant("restart", "NAME", "stop an MCP server and start it again"),),
    ),
    CommandSpec("memory", "", "show MEMORY.md and USER.md"),
    CommandSpec("skills", "", "list the skills the model can load, and any that could not be loaded"),
    CommandSpec("todo", "", "show the todo list"),
    CommandSpec(
        "init",
        "[notes]",
        "have the model survey the project and write AGENTS.md; if there is one, it proposes changes and asks first",
        waits=True,
    ),
    CommandSpec("model", "[name]", "pick a model from a list, or switch to the one named", waits=True),
    CommandSpec(
        "mode",
        "[default|accept-edits|plan]",
        "show the mode, or switch: plan is read-only (kernel-enforced), accept-edits edits without asking",
        known_as=("plan", "permissions"),
        waits=True,
    ),
    CommandSpec("help", "", "the commands (in the app, the keys too)"),
    CommandSpec("quit", "", "leave; the session is already saved", aliases=("exit",)),
)
REGISTRY: dict[str, CommandSpec] = {c.name: c for c in COMMANDS}


class UnknownCommand(Exception):
    """`str()` is the helpful message: the closest command, and where the list is."""


def lookup(name: str) -> CommandSpec | None:
    name = name.lower()
    return REGISTRY.get(name) or next((c for c in COMMANDS if name in c.aliases), None)


def closest(name: str, others: Iterable[str] = ()) -> str | None:
    """The command a mistyped `name` most likely meant: the one another agent calls `name`, the
    only one it begins, else the nearest; `others` are more names to consider (prompt commands)."""
    lowered = name.lower()
    synonym = next((c.name for c in COMMANDS if lowered in c.known_as), None)
    if synonym:
        return synonym
    names = [*REGISTRY, *others]
    prefixed = [n for n in names if n.startswith(lowered)] if name else []
    if len(prefixed) == 1:
        return prefixed[0]
    match = difflib.get_close_matches(lowered, names + [a for c in COMMANDS for a in c.aliases], n=1, cutoff=0.5)
    if not match:
        return None
    found = lookup(match[0])
    return found.name if found else match[0]


def is_command(text: str) -> bool:
    """A message starting with a path (`/etc/hosts is empty`) is a message, not a command."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return first.startswith("/") and "/" not in first[1:]


def waits_for_turn(text: str) -> bool:
    """Whether `text` must wait for the running turn: messages, `!commands` and commands that
    change the session do; commands that only show something, and unknown ones, do not."""
    if not is_command(text):
        return True
    found = lookup(text.strip().split(maxsplit=1)[0][1:])
    return found is not None and found.waits


def parse(text: str, front_end: str) -> tuple[CommandSpec, str]:
    """(`command`, argument text) for `/name args` typed in `front_end`; raises UnknownCommand,
    also for a command that front end does not have (saying where it works)."""
    head, _, rest = text.strip().partition(" ")
    name = head[1:]
    found = lookup(name)
    if found is None:
        raise unknown(head, closest(name))
    if not found.available_in(front_end):
        raise UnknownCommand(f"{elsewhere(found)}. Type /help for the list.")
    return found, rest.strip()


def unknown(head: str, guess: str | None) -> UnknownCommand:
    hint = f" Did you mean /{guess}?" if guess else ""
    return UnknownCommand(f"Unknown command {head}.{hint} Type /help for the list.")


def elsewhere(spec: CommandSpec) -> str:
    """Where a command missing from a front end can be used instead, for the line that says so."""
    places = [FRONT_ENDS[f] for f in FRONT_ENDS if spec.available_in(f)]
    return f"{spec.slash} works only in {' and '.join(places)}" if places else f"{spec.slash} is not available"


def available(front_end: str, commands: tuple[CommandSpec, ...] = COMMANDS) -> list[CommandSpec]:
    return [c for c in commands if c.available_in(front_end)]


def missing(front_end: str, commands: tuple[CommandSpec, ...] = COMMANDS) -> list[CommandSpec]:
    return [c for c in commands if not c.available_in(front_end)]


H = TypeVar("H", bound=Callable[..., object])


class Handlers(Generic[H]):
    """One front end's handlers, bound to the registry's names with `@handlers.bind(name)`.

    Binding a name the registry lacks, or one the registry does not give this
    front end, fails at import: a front end cannot grow a command of its own.
    """

    def __init__(self, front_end: str) -> None:
        self.front_end = front_end
        self._by_name: dict[str, H] = {}

    def bind(self, name: str) -> Callable[[H], H]:
        spec = REGISTRY.get(name)
        if spec is None or not spec.available_in(self.front_end):
            raise KeyError(f"/{name} is not a command of {FRONT_ENDS[self.front_end]} in the registry")

        def register(fn: H) -> H:
            self._by_name[name] = fn
            return fn

        return register

    def names(self) -> set[str]:
        return set(self._by_name)

    def for_command(self, spec: CommandSpec) -> H:
        return self._by_name[spec.name]


@dataclass(frozen=True)
class PromptCommand:
    """A command whose text comes from outside the code: a command file, an MCP server's prompt.

    Running it sends what `expand(args)` returns as the user's message, and the model answers it.
    `origin` says where it comes from in a line (a file's path, "MCP server github")."""

    spec: CommandSpec
    origin: str
    expand: Callable[[str], Awaitable[str]]


class CommandProvider(Protocol):
    """A source of prompt commands, asked each time the list is read, so a source that fills in
    late (a server that starts in the background) offers its commands once it has them."""

    def prompt_commands(self) -> Sequence[PromptCommand]: ...


class CommandRegistry:
    """One front end's commands: the built-in table, then the prompt commands of each provider in
    the order they were added. A name a built-in command has (or an alias of one), or an earlier
    provider's, is not offered; `refused` says so, one line each."""

    def __init__(self, providers: Iterable[CommandProvider] = ()) -> None:
        self._providers = list(providers)

    def add(self, provider: CommandProvider) -> None:
        self._providers.append(provider)

    def _sorted_out(self) -> tuple[dict[str, PromptCommand], list[str]]:
        offered: dict[str, PromptCommand] = {}
        refused: list[str] = []
        for provider in self._providers:
            for command in provider.prompt_commands():
                slash, name = command.spec.slash, command.spec.name.lower()
                if lookup(name) is not None:
                    refused.append(f"{slash} from {command.origin} is not offered: {slash} is a built-in command")
                elif name in offered:
                    refused.append(f"{slash} from {command.origin} is not offered: {offered[name].origin} has it")
                else:
                    offered[name] = command
        return offered, refused

    def prompt_commands(self) -> list[PromptCommand]:
        return list(self._sorted_out()[0].values())

    def refused(self) -> list[str]:
        return self._sorted_out()[1]

    def specs(self) -> tuple[CommandSpec, ...]:
        """Every command: the built-in ones, then the prompt commands."""
        return (*COMMANDS, *(c.spec for c in self.prompt_commands()))

    def prompt_command(self, name: str) -> PromptCommand | None:
        return self._sorted_out()[0].get(name.lower())

    def closest(self, name: str) -> str | None:
        """As `closest`, among the prompt commands too."""
        return closest(name, (c.spec.name for c in self.prompt_commands()))

    def parse(self, text: str, front_end: str) -> tuple[CommandSpec | PromptCommand, str]:
        """As `parse`, finding the prompt commands too."""
        head, _, rest = text.strip().partition(" ")
        if (prompt := self.prompt_command(head[1:])) is not None:
            return prompt, rest.strip()
        if lookup(head[1:]) is None:
            raise unknown(head, self.closest(head[1:]))
        return parse(text, front_end)

    def waits_for_turn(self, text: str) -> bool:
        """As `waits_for_turn`; a prompt command sends a message, so it waits like one."""
        if is_command(text) and self.prompt_command(text.strip().split(maxsplit=1)[0][1:]) is not None:
            return True
        return waits_for_turn(text)
