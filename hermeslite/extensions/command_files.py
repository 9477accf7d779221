"""Custom command files: Markdown templates that become `/name [args]`.

They are read from `.hermeslite/commands/` in the project (the working
directory) and `commands/` in the user's config directory. A file's path
below its folder names it: `review.md` is /review and `git/commit.md` is
/git:commit, so two `test.md` in different folders stay two commands (the
folder:name form of Claude Code's first version and of Zed). Names are
lowercased and made of letters, digits, `-` and `_`.

The front matter may set `description` (else the first line of the text is
used) and `argument-hint`. Other keys written for other agents
(`allowed-tools`, `model`) are ignored: a command is text for the model and
changes no permission, and `!`command`` or `@file` in it are sent as written.

When the user's folder and the project's hold the same name, the user's
command wins, as in Claude Code: a cloned repository cannot redefine a
command the user relies on. The project's file is named in a line.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from hermeslite.paths import config_dir

from .frontmatter import parse
from .reading import Refused, read_text, shown

PROJECT_DIR = Path(".hermeslite") / "commands"
MAX_FILES = 500  # per folder: a folder of thousands is a mistake, and the dropdown would drown
NAME_PART = re.compile(r"[a-z0-9][a-z0-9_-]*")
PLACEHOLDER = re.compile(r"\$(?:(ARGUMENTS)|([1-9])(?![0-9]))")
DESCRIPTION_CHARS = 100


@dataclass(frozen=True)
class CommandFile:
    name: str  # without the slash, e.g. "git:commit"
    description: str  # one line
    argument_hint: str  # e.g. "[file] [focus]"; "" when the file sets none
    template: str
    path: Path
    scope: str  # "project" or "user"

    def expand(self, args: str) -> str:
        return expand(self.template, args)


@dataclass(frozen=True)
class CommandFiles:
    commands: tuple[CommandFile, ...] = ()  # by name
    problems: tuple[str, ...] = ()  # one line per file not loaded


def expand(template: str, args: str) -> str:
    """`template` with `$ARGUMENTS` replaced by `args` and `$1`..`$9` by its words (quotes group
    words, as in a shell; a missing word is empty). Arguments given to a template that takes none
    are appended as `ARGUMENTS: ...`, as Claude Code does, so they are never dropped unseen. One
    pass: an argument containing `$1` stays as typed."""
    words = _words(args)
    used = False

    def fill(match: re.Match[str]) -> str:
        nonlocal used
        used = True
        if match.group(1):
            return args
        index = int(match.group(2)) - 1
        return words[index] if index < len(words) else ""

    text = PLACEHOLDER.sub(fill, template)
    return f"{text}\n\nARGUMENTS: {args}" if args and not used else text


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote: plain words
        return args.split()


def load_command_files(cwd: Path, user_root: Path | None = None) -> CommandFiles:
    """The command files of the user (`user_root`, default the config directory) and of the project
    in `cwd`; the user's win a name both have."""
    user = (user_root or config_dir()) / "commands"
    project = cwd / PROJECT_DIR
    found: dict[str, CommandFile] = {}
    problems: list[str] = []
    roots: list[tuple[str, Path, Path | None]] = [("user", user, None)]
    if not (project.is_dir() and user.is_dir() and project.resolve() == user.resolve()):
        roots.append(("project", project, cwd))
    for scope, root, inside in roots:
        for path, name in _command_paths(root, cwd, problems):
            try:
                command = _read(path, name, scope, inside)
            except Refused as why:
                problems.append(f"custom command {shown(path, cwd)} is skipped: {why}")
                continue
            first = found.get(name)
            if first is not None:
                problems.append(
                    f"custom command {shown(path, cwd)} is skipped: /{name} is already defined by {shown(first.path, cwd)}"
                    + (" (the user's command wins over the project's)" if first.scope != scope else "")
                )
                continue
            found[name] = command
    return CommandFiles(tuple(found[n] for n in sorted(found)), tuple(problems))


def _command_paths(root: Path, cwd: Path, problems: list[str]) -> list[tuple[Path, str]]:
    """(file, command name) for each `.md` file under `root`, hidden entries skipped, in name order."""
    if not root.is_dir():
        return []
    found: list[tuple[Path, str]] = []

    def unreadable(exc: OSError) -> None:
        problems.append(f"custom commands in {shown(Path(exc.filename or root), cwd)} are skipped: {exc.strerror}")

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file in sorted(f for f in files if f.endswith(".md") and not f.startswith(".")):
            path = Path(folder) / file
            parts = [p.lower() for p in path.relative_to(root).with_suffix("").parts]
            if not all(NAME_PART.fullmatch(p) for p in parts):
                shown_name = ":".join(parts)
                problems.append(
                    f"custom command {shown(path, cwd)} is skipped: /{shown_name} is not a usable name "
                    "(letters, digits, - and _ only)"
                )
                continue
            found.append((path, ":".join(parts)))
    if len(found) > MAX_FILES:
        problems.append(f"only the first {MAX_FILES} custom commands in {shown(root, cwd)} are read")
    return sorted(found, key=lambda item: item[1])[:MAX_FILES]


def _read(path: Path, name: str, scope: str, inside: Path | None) -> CommandFile:
    document = parse(read_text(path, inside=inside))
    template = document.body.strip("\n").rstrip()
    if not template.strip():
        raise Refused("it has no text to send")
    description = document.text("description") or _first_line(template)
    return CommandFile(
        name=name,
        description=_one_line(description),
        argument_hint=_one_line(document.text("argument-hint") or ""),
        template=template,
        path=path,
        scope=scope,
    )


def _first_line(text: str) -> str:
    line = next(line for line in text.splitlines() if line.strip())
    return line.strip().lstrip("#").strip()


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= DESCRIPTION_CHARS else flat[: DESCRIPTION_CHARS - 1] + "…"
