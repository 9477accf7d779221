"""/init: the model surveys the repository and writes its AGENTS.md.

The command is one ordinary turn: a prompt of ours as the user's message, and
the model reads and writes through the normal tools, with their approval and
sandbox. An existing file is never replaced unasked: the prompt then has the
model propose its changes and ask, and the user's answer (the next message)
is the permission. The prompt, not a dialog, asks, so the command behaves the
same in the app, in the line chat and in a script that pipes lines into it.
After the turn a notice says in one line what became of the file, emitted as
an event so every front end shows it after the reply.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import events as ev

if TYPE_CHECKING:
    from .loop import Agent

DEFAULT_NAME = "AGENTS.md"
# What other agents read, worth carrying over when the file is new.
OTHER_AGENTS_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".cursorrules", ".github/copilot-instructions.md")

SURVEY = """\
Look before you write: list the files, read the README, the build and package files \
(pyproject.toml, package.json, Cargo.toml, go.mod, Makefile, ...), the CI configuration and a few \
central source files. Write only what you have seen; do not guess.

It should cover, briefly:
- what the project is, in one or two lines;
- how to set it up, build, run, lint and test it, with the exact commands (and how to run a single test);
- the layout: the main folders and what lives where;
- the conventions the code follows that a newcomer would get wrong (style, naming, errors, tests);
- what needs care: generated files, secrets, slow or destructive commands.
Keep it short and concrete: commands in backquotes, paths as they are, no general advice any \
engineer knows. Under about 150 lines."""


@dataclass(frozen=True)
class InitPlan:
    """One /init: the file it is about, what was there before the turn, and the prompt sent."""

    path: Path
    name: str
    before: bytes | None  # the file's bytes before the turn; None when there was none
    prompt: str

    def outcome(self, *, undoable: bool = False) -> ev.Notice:
        """What became of the file in the turn, in one line; a warning when an existing file was
        changed although the model was told to ask first, naming /undo when file checkpoints
        (`undoable`) hold the old one."""
        after = _read(self.path)
        rest = "new sessions read it; this one from its next compaction."
        if after is None:
            return ev.Notice(f"{self.name} was not written.")
        count = len(after.splitlines())
        lines = f"{count} line{'' if count == 1 else 's'}"
        if self.before is None:
            return ev.Notice(f"Wrote {self.name} ({lines}): {rest}")
        if after == self.before:
            return ev.Notice(f"{self.name} is unchanged: answer the model to have it apply the changes it proposes.")
        back = " /undo puts the old one back." if undoable else ""
        return ev.Notice(
            f"{self.name} was changed ({lines} now) although the model was told to ask you first; {rest}{back}",
            "warning",
        )


def plan(agent: Agent, notes: str = "") -> InitPlan:
    """The /init for the agent's working directory; `notes` are the user's wishes, added to the prompt."""
    settings = agent.deps.settings.instructions
    name = settings.files[0] if settings.files else DEFAULT_NAME
    cwd = agent.deps.cwd
    path = cwd / name
    return InitPlan(path, name, _read(path), _prompt(name, cwd, exists=os.path.lexists(path), notes=notes.strip()))


async def run(agent: Agent, init: InitPlan) -> ev.TurnFinished:
    """The turn, then a notice saying what became of the file (not after a cancelled turn: the user
    stopped it and sees where it stopped)."""
    finished = await agent.run_turn(init.prompt)
    if not finished.cancelled:
        agent.emit(init.outcome(undoable=agent.deps.checkpoints.off_reason is None))
    return finished


def _prompt(name: str, cwd: Path, *, exists: bool, notes: str) -> str:
    others = [n for n in OTHER_AGENTS_FILES if n != name and (cwd / n).is_file()]
    about = (
        f"{name} is the file of instructions that coding agents (hermeslite among them) read at the start "
        "of every session in this project. Write it for an agent that has never seen this code."
    )
    if exists:
        head = (
            f"/init: {name} already exists in the working directory. Survey this repository and propose "
            f"how to improve {name}, but do not change it yet."
        )
        task = (
            f"Read {name} first. Then reply with the changes you propose (what to add, correct or remove, and "
            f"why) and ask me whether to apply them. Do not write or patch {name} in this turn: change it only "
            "after I say yes."
        )
    else:
        head = f"/init: survey this repository and write {name} in the working directory."
        task = f"Then write it with write_file at {name}, and reply with a few lines on what it covers."
    parts = [head, about, SURVEY, task]
    if others:
        parts.append(f"Other agents' instruction files are here ({', '.join(others)}): keep what in them still holds.")
    if notes:
        parts.append(f"What I want it to stress: {notes}")
    return "\n\n".join(parts)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None
