"""Skills: folders holding a SKILL.md that the model loads when a task calls for one.

The Agent Skills format (agentskills.io): a folder whose SKILL.md opens with
front matter naming the skill (`name`: 1 to 64 lowercase letters, digits and
single hyphens, the same as the folder's name) and saying what it is for and
when to use it (`description`, at most 1024 characters). The body holds the
instructions; files beside it (scripts, references) are read only when the
instructions point to them.

Folders read, first one wins a name:

    user     <config dir>/skills, then ~/.agents/skills
    project  .hermeslite/skills, then .agents/skills (in the working directory)

`.agents/skills` is where skills are shared between agents (the format's
guide for clients; Codex and opencode read it too); `skills.shared: false`
leaves both out. The user's skills win over the project's, as in Claude
Code: a cloned repository cannot replace a skill the user relies on, and the
one it shadows is named in a line.

Lenient where the format's guide asks for it, strict where a bad value would
mislead the model: a missing name takes the folder's, and a name that differs
from its folder loads with a line; a name with other characters, a missing
description or a front matter that cannot be read skips the skill with a
line. Only names and descriptions are kept: the body is read each time the
model loads the skill, so an edit made during a session is seen.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from hermeslite.paths import config_dir

from .frontmatter import Document, parse
from .reading import Refused, read_text, shown

SKILL_FILE = "SKILL.md"
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_PER_FOLDER = 200
MAX_FILES_LISTED = 100
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
SHARED = Path(".agents") / "skills"

CATALOG_INTRO = (
    "Skills: instructions for particular kinds of task, kept in files. When the user's request matches "
    "a skill's description, call the skill tool with that skill's name before you start and follow what "
    "it returns; read the files it lists with read_file when its instructions point to them."
)


@dataclass(frozen=True)
class Skill:
    name: str
    description: str  # one line, as the model sees it
    path: Path  # the SKILL.md, as found (not resolved)
    location: str  # that path as the user knows it (relative to the project, or with ~)
    scope: str  # "user", "user, shared", "project" or "project, shared"
    project: Path | None  # the project root a project skill must stay inside; None for the user's

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass(frozen=True)
class Skills:
    skills: tuple[Skill, ...] = ()  # by name
    problems: tuple[str, ...] = ()  # one line per skill not loaded, or loaded despite a fault

    def get(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    def readable_roots(self) -> tuple[Path, ...]:
        """The resolved folders of the user's skills, which read_file may read without asking, as
        it reads the project: their files are what the skill tool tells the model to read.

        A project's skills are inside the project already, and one that links out of it is no
        reason to open the place it links to. A folder that holds the home directory (a skill
        folder linked to `~`) would open everything, so it is left out and reads there ask.
        """
        home = Path.home().resolve()
        roots = []
        for skill in self.skills:
            if skill.project is None:
                root = skill.folder.resolve()
                if not home.is_relative_to(root) and root not in roots:
                    roots.append(root)
        return tuple(roots)

    def catalog(self, budget: int) -> str:
        """The system prompt's section: how to use skills, then `- name: description` per skill, in
        name order, in at most `budget` characters; when they do not all fit, the last line counts
        those left out. Empty when there are no skills (the skill tool is then not offered either)."""
        if not self.skills:
            return ""
        lines = [f"- {skill.name}: {skill.description}" for skill in self.skills]
        sizes = list(accumulate((len(line) + 1 for line in lines), initial=len(CATALOG_INTRO)))
        if sizes[-1] <= budget:
            return "\n".join([CATALOG_INTRO, *lines])
        fits = (k for k in reversed(range(len(lines))) if sizes[k] + 1 + len(_more(len(lines) - k)) <= budget)
        listed = next(fits, 0)
        return "\n".join([CATALOG_INTRO, *lines[:listed], _more(len(lines) - listed)])


def _more(left: int) -> str:
    return (
        f"- ({left} more skill{'s' if left != 1 else ''} not listed: the list is capped at skills.catalog_chars; "
        "the user can see them all with /skills)"
    )


def skill_folders(
    cwd: Path, *, shared: bool = True, user_root: Path | None = None
) -> list[tuple[Path, str, Path | None]]:
    """(folder, scope, project root or None) in order of precedence."""
    folders: list[tuple[Path, str, Path | None]] = [((user_root or config_dir()) / "skills", "user", None)]
    if shared:
        folders.append((Path.home() / SHARED, "user, shared", None))
    folders.append((cwd / ".hermeslite" / "skills", "project", cwd))
    if shared:
        folders.append((cwd / SHARED, "project, shared", cwd))
    return folders


def load_skills(cwd: Path, *, shared: bool = True, user_root: Path | None = None) -> Skills:
    """Every skill in the folders of `skill_folders`, the first of a name winning."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    seen: set[Path] = set()
    for folder, scope, project in skill_folders(cwd, shared=shared, user_root=user_root):
        if not folder.is_dir() or folder.resolve() in seen:  # the project may be the home directory
            continue
        seen.add(folder.resolve())
        for path in _skill_files(folder, cwd, problems):
            try:
                skill, notes = _read(path, cwd, scope, project)
            except Refused as why:
                problems.append(f"skill {shown(path, cwd)} is skipped: {why}")
                continue
            first = found.get(skill.name)
            if first is not None:
                wins = " (the user's skills win over the project's)" if first.project is None and project else ""
                problems.append(
                    f"skill {skill.location} is skipped: a skill named {skill.name} is already {first.location}{wins}"
                )
                continue
            problems += [f"skill {skill.location}: {note}" for note in notes]
            found[skill.name] = skill
    return Skills(tuple(found[n] for n in sorted(found)), tuple(problems))


def _skill_files(folder: Path, cwd: Path, problems: list[str]) -> list[Path]:
    """The SKILL.md of each subfolder of `folder` that has one, in folder-name order."""
    try:
        entries = sorted(e for e in os.listdir(folder) if not e.startswith("."))
    except OSError as exc:
        problems.append(f"skills in {shown(folder, cwd)} are skipped: {exc.strerror}")
        return []
    files = [folder / e / SKILL_FILE for e in entries if (folder / e / SKILL_FILE).exists()]
    if len(files) > MAX_PER_FOLDER:
        problems.append(f"only the first {MAX_PER_FOLDER} skills in {shown(folder, cwd)} are read")
    return files[:MAX_PER_FOLDER]


def _read(path: Path, cwd: Path, scope: str, project: Path | None) -> tuple[Skill, list[str]]:
    """The skill in `path` and the faults it was loaded despite; raises Refused when it cannot be."""
    document = parse(read_text(path, inside=project))
    if not document.fields:
        raise Refused("it has no front matter (--- name: ... description: ... ---)")
    notes = []
    folder = path.parent.name
    name = _name(document, folder)
    if name != folder:
        notes.append(f"its name {name} differs from its folder {folder} (loaded as {name})")
    description = " ".join((document.text("description") or "").split())
    if not description:
        raise Refused("it has no description in its front matter")
    if len(description) > MAX_DESCRIPTION:
        notes.append(
            f"its description is longer than {MAX_DESCRIPTION} characters; the model sees the first {MAX_DESCRIPTION}"
        )
        description = description[: MAX_DESCRIPTION - 1] + "…"
    return Skill(name, description, path, shown(path, cwd), scope, project), notes


def _name(document: Document, folder: str) -> str:
    name = document.text("name")
    if name is None:
        if not _valid_name(folder):
            raise Refused(f"it has no name, and its folder's name {folder!r} is not a skill name ({_NAME_RULE})")
        return folder
    if not _valid_name(name):
        raise Refused(f"{name!r} is not a skill name ({_NAME_RULE})")
    return name


_NAME_RULE = f"1 to {MAX_NAME} lowercase letters, digits and single hyphens"


def _valid_name(name: str) -> bool:
    return len(name) <= MAX_NAME and NAME.fullmatch(name) is not None


@dataclass(frozen=True)
class Opened:
    """A skill as the model loads it: the instructions and the files beside them."""

    body: str
    files: tuple[str, ...]  # paths relative to the skill's folder, at most MAX_FILES_LISTED
    complete: bool  # False when the folder holds more files than are listed


def open_skill(skill: Skill) -> Opened:
    """Read `skill` now (the file may have changed since the session started); raises Refused.

    The walk stops once the list is full, so a skill folder linked to a large tree costs no more."""
    document = parse(read_text(skill.path, inside=skill.project))
    files: list[str] = []
    for folder, dirs, names in os.walk(skill.folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(n for n in names if not n.startswith(".")):
            relative = (Path(folder) / name).relative_to(skill.folder).as_posix()
            if relative == SKILL_FILE:
                continue
            if len(files) == MAX_FILES_LISTED:
                return Opened(document.body.strip(), tuple(files), complete=False)
            files.append(relative)
    return Opened(document.body.strip(), tuple(files), complete=True)
