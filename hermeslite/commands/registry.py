"""The one list of slash commands: names, argument hints, help, and which front ends have each.

Every place that names commands reads this table: the TUI's dropdown, its
Ctrl+P palette and /help, the line chat's parser and /help, and the
suggestion for a mistyped name. A front end binds its own handler to each
name (the app shows a view where the line chat prints lines), but never
keeps a list of its own, so a command added here reaches every front end
or fails a test there. A command that one front end cannot offer says so
in `front_ends`, and that front end's /help lists it as missing.

`-p` (headless) takes one prompt and no commands: it is not a front end
here. Scripts run commands by piping lines into the line chat.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

TUI = "tui"
LINE = "line"
FRONT_ENDS = {TUI: "the app", LINE: "the line chat"}
EVERYWHERE = frozenset(FRONT_ENDS)


@dataclass(frozen=True)
class Variant:
    """An argument that makes a command do something else, listed on its own (palette, README)."""

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
        """The command and each variant, as a user types them: the rows of the README's table."""
        return [self.usage] + [f"{self.slash} {v.word} {v.args}".strip() for v in self.variants]

    def available_in(self, front_end: str) -> bool:
        return front_end in self.front_ends


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "compress",
        "[--preview] [focus]",
        "compact the conversation now; a focus topic is kept in most detail; --preview only shows what it would do",
        known_as=("compact",),
        waits=True,
        variants=(Variant("--preview", "[focus]", "show what /compress would do: nothing is sent or changed"),),
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
    CommandSpec("memory", "", "show MEMORY.md and USER.md"),
    CommandSpec("todo", "", "show the todo list"),
    CommandSpec("model", "[name]", "show the model, or switch to the one named", waits=True),
    CommandSpec("help", "", "the commands (in the app, the keys too)"),
    CommandSpec("quit", "", "leave; the session is already saved", aliases=("exit",)),
)
REGISTRY: dict[str, CommandSpec] = {c.name: c for c in COMMANDS}


class UnknownCommand(Exception):
    """`str()` is the helpful message: the closest command, and where the list is."""


def lookup(name: str) -> CommandSpec | None:
    name = name.lower()
    return REGISTRY.get(name) or next((c for c in COMMANDS if name in c.aliases), None)


def closest(name: str) -> str | None:
    """The command a mistyped `name` most likely meant: the one another agent calls `name`, the
    only one it begins, else the nearest."""
    synonym = next((c.name for c in COMMANDS if name.lower() in c.known_as), None)
    if synonym:
        return synonym
    prefixed = [n for n in REGISTRY if n.startswith(name.lower())] if name else []
    if len(prefixed) == 1:
        return prefixed[0]
    names = list(REGISTRY) + [a for c in COMMANDS for a in c.aliases]
    match = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.5)
    found = lookup(match[0]) if match else None
    return found.name if found else None


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
        guess = closest(name)
        hint = f" Did you mean /{guess}?" if guess else ""
        raise UnknownCommand(f"Unknown command {head}.{hint} Type /help for the list.")
    if not found.available_in(front_end):
        raise UnknownCommand(f"{elsewhere(found)}. Type /help for the list.")
    return found, rest.strip()


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
