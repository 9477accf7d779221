"""Facts the code itself pulls out of compacted turns, so no summary can lose them.

An LLM summary is a lossy paraphrase, and a small model's is often wrong. The
things a resumed agent needs most (what the user said and asked it always or
never to do, which files it touched, which commands failed, the error text)
are cheap to extract exactly. They are checked against the summary and
whatever is missing is appended verbatim. What they may cost is decided in
`ranking`, by importance rather than age.

The todo list is not among them: the agent re-attaches the live list after
every compaction, and a second copy here would go stale.

Anchors are stored with the session (`_hl_anchors`), so every text in them is
redacted as it is taken, and again when older stored anchors are read back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from .attachments import typed_text
from .exit_codes import exit_code_of
from .handoff import has_handoff, split_handoff
from .instructions import instruction_in, merge_instructions, render_instruction
from .messages import Message, call_id, call_name, parsed_arguments, text_of, tool_calls_of
from .open_failures import drop_resolved, dropped_by_user
from .redact import redact_secrets, redact_slice
from .tool_roles import DEFAULT_TOOL_ROLES, ToolRole, ToolRoles

USER_CHARS = 300
MAX_USERS = 200  # user messages looked at per compaction (bounded work; `ranking` sets the budget)
MAX_FILES = 100  # files only read, per compaction
MAX_WRITTEN = 200  # files written or patched, per compaction
MAX_COMMANDS = 20
MAX_OLDER_FAILURES = 40  # open failures kept beyond the newest 20 commands (until resolved; see open_failures)
MAX_ERRORS = 8
ERRORS_PER_COMMAND = 4
ERROR_CHARS = 240
ERROR_SCAN_CHARS = 6_000
T = TypeVar("T")
MATCH_PREFIX = 60
FILE_ACTIONS = {ToolRole.READS_FILES: "read", ToolRole.WRITES_FILES: "wrote", ToolRole.PATCHES_FILES: "patched"}
# A command's error lines go with the command; file contents shown by a tool hold "error" as code, not failures.
OWN_ERROR_LINES = {ToolRole.RUNS_COMMANDS, ToolRole.READS_FILES, ToolRole.SEARCHES_FILES}
# Searched in the lower-cased line. Every branch starts with a literal so `re` can skip ahead fast
# (an IGNORECASE pattern opening with \b or \w* costs ten times more); the word-start checks sit in
# look-behinds after the literal. "error" also matches inside AssertionError, ValueError, ...
ERROR_LINE = re.compile(
    r"(?:error|exception)s?\b|traceback(?<!\wtraceback)\b|fatal(?<!\wfatal)\b|panic(?<!\wpanic)\b"
    r"|failed(?<!\wfailed)\b|failure(?<!\wfailure)\b|command not found|no such file"
)
NOT_AN_ERROR = re.compile(r"\b0 (?:failed|errors?)\b|\bno errors?\b", re.IGNORECASE)
HEADING = "## Recorded Facts"


def _norm(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Anchors:
    users: list[str] = field(default_factory=list)  # newest first; the first is the latest ask
    instructions: list[list[str]] = field(default_factory=list)  # [text, earlier one it replaced or ""], newest first
    files: list[list[str]] = field(default_factory=list)  # [action, path], newest first
    commands: list[list[Any]] = field(default_factory=list)  # [command, exit code or None] of its newest run
    errors: list[str] = field(default_factory=list)  # error lines of tools other than terminal, newest first
    failures: dict[str, list[str]] = field(default_factory=dict)  # command -> error lines of its failed newest run

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Anchors:
        """Anchors as the transcript stores them; keys from older versions (todos) are ignored."""
        data = data or {}

        def strings(key: str) -> list[str]:
            return [redact_secrets(x) for x in data.get(key) or [] if isinstance(x, str)]

        def pairs(key: str) -> list[list[Any]]:
            return [
                [redact_secrets(v) if isinstance(v, str) else v for v in x]
                for x in data.get(key) or []
                if isinstance(x, (list, tuple)) and len(x) == 2
            ]

        stored = data.get("failures")
        raw: dict[Any, Any] = stored if isinstance(stored, dict) else {}
        failures = {
            redact_secrets(str(k)): [redact_secrets(x) for x in v if isinstance(x, str)]
            for k, v in raw.items()
            if isinstance(v, list)
        }
        instructions = [[str(t), str(n or "")] for t, n in pairs("instructions") if isinstance(t, str)]
        return cls(strings("users"), instructions, pairs("files"), pairs("commands"), strings("errors"), failures)

    def is_empty(self) -> bool:
        return not (self.users or self.instructions or self.files or self.commands or self.errors)

    def merged_with(self, older: Anchors) -> Anchors:
        """These (newer) anchors first, then the older ones, deduplicated.

        A command run again in the newer turns keeps only its newer outcome, and a
        newer success of the same target (`open_failures`) resolves an older
        failure, so a failure that was fixed since drops out together with its
        error lines; so does one the user said to drop. A
        file keeps its strongest action: written or patched beats read. Standing
        instructions are merged so a later one replaces what it reverses.
        """
        newer = {c[0] for c in self.commands}
        dropped = {cmd for text in self.users for cmd in dropped_by_user(text, older.commands, failed)} - newer
        commands = _dedupe(self.commands + [c for c in older.commands if c[0] not in dropped], key=lambda c: c[0])
        commands = drop_resolved(commands, failed)  # a failure a later run of its target fixed goes
        latest_failures = {c[0]: (self.failures if c[0] in newer else older.failures).get(c[0]) for c in commands}
        commands, failures = _cap_commands(commands, latest_failures.get)
        return Anchors(
            users=_dedupe(self.users + older.users, key=_norm),
            instructions=merge_instructions(self.instructions, older.instructions),
            files=_merge_files(self.files + older.files),
            commands=commands,
            errors=_dedupe(self.errors + older.errors, key=_norm)[:MAX_ERRORS],
            failures=failures,
        )

    def missing_from(self, summary: str) -> Anchors:
        """Only the anchors the summary text does not already carry.

        An instruction counts as carried only word for word: a paraphrase of
        "never touch vendor/" is exactly how such rules get lost.
        """
        flat = _norm(summary)

        def present(text: str) -> bool:
            return _norm(text)[:MATCH_PREFIX] in flat

        commands = [
            c
            for c in self.commands
            if not present(str(c[0])) or not all(present(e) for e in self.failures.get(c[0], []))
        ]
        return Anchors(
            users=[u for u in self.users if not present(u)],
            instructions=[i for i in self.instructions if _norm(i[0]) not in flat],
            files=[f for f in self.files if f[1] not in summary],
            commands=commands,
            errors=[e for e in self.errors if not present(e)],
            failures={c[0]: self.failures[c[0]] for c in commands if c[0] in self.failures},
        )


def _dedupe(items: list[T], key: Callable[[T], Any]) -> list[T]:
    seen, out = set(), []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def _merge_files(files: list[list[str]]) -> list[list[str]]:
    """One entry per path, at its newest place, with its strongest action (wrote/patched over read)."""
    out: list[list[str]] = []
    at: dict[str, int] = {}
    for action, path in files:
        if path not in at:
            at[path] = len(out)
            out.append([action, path])
        elif out[at[path]][0] == "read" and action != "read":
            out[at[path]] = [action, path]
    return out


def is_written(file: list[str]) -> bool:
    return file[0] != "read"


def failed(command: list[Any]) -> bool:
    return command[1] not in (0, None)


def _cap_commands(
    commands: list[list[Any]], lines_of: Callable[[str], list[str] | None]
) -> tuple[list[list[Any]], dict[str, list[str]]]:
    """The newest 20 commands, plus older ones still failing: an open failure is what a resumed agent must not
    forget (resolved ones were dropped before; what the rest may cost is `ranking`'s budget).

    Among the older ones, failures that printed an error line come first: a
    `grep` that found nothing exits 1 too, and must not crowd out a failing test.
    `lines_of` gives a command's error lines; it is asked only about commands
    that can still be kept, so a long session costs no more than a short one.
    """
    failures: dict[str, list[str]] = {}

    def note(command: list[Any]) -> bool:
        lines = lines_of(command[0])
        if lines:
            failures[command[0]] = lines
        return bool(lines)

    kept = commands[:MAX_COMMANDS]
    for command in kept:
        note(command)
    with_lines: list[list[Any]] = []
    without: list[list[Any]] = []
    for command in commands[MAX_COMMANDS:]:
        if len(with_lines) >= MAX_OLDER_FAILURES:
            break
        if note(command):
            with_lines.append(command)
        elif failed(command):
            without.append(command)
    chosen = {id(c) for c in with_lines + without[: MAX_OLDER_FAILURES - len(with_lines)]}
    kept = kept + [c for c in commands[MAX_COMMANDS:] if id(c) in chosen]
    return kept, {c[0]: failures[c[0]] for c in kept if c[0] in failures}


def _clip(text: str, limit: int) -> str:
    """`text` redacted and cut to `limit` characters; the cut never leaves part of a secret."""
    text = text.strip()
    return redact_secrets(text) if len(text) <= limit else redact_slice(text, 0, limit - 1) + "…"


def _user_text(msg: Message) -> str:
    if has_handoff(msg):
        _, rest = split_handoff(msg)
        return typed_text(text_of(rest)) if rest is not None else ""
    return typed_text(text_of(msg.get("content")))


def _error_lines(output: str) -> list[str]:
    found = []
    scanned = redact_slice(output, max(0, len(output) - ERROR_SCAN_CHARS), len(output))
    for line in reversed(scanned.splitlines()):
        if ERROR_LINE.search(line.lower()) and not NOT_AN_ERROR.search(line) and line.strip():
            found.append(_clip(line, ERROR_CHARS))
    return found


def extract_anchors(messages: Iterable[Message], roles: ToolRoles = DEFAULT_TOOL_ROLES) -> Anchors:
    """Anchors from compacted turns, walking newest first so caps keep the latest; `roles` says
    which tools ran commands and touched files."""
    messages = list(messages)
    results = {str(m.get("tool_call_id")): m for m in messages if m.get("role") == "tool"}
    names = {call_id(c): call_name(c) for m in messages if m.get("role") == "assistant" for c in tool_calls_of(m)}
    anchors = Anchors()
    files = _Files()
    seen_commands: set[str] = set()
    failed_output: dict[str, str] = {}  # command -> output of its newest run, when that did not exit 0
    for msg in reversed(messages):
        role = msg.get("role")
        if role == "user":
            _note_user(anchors, _user_text(msg))
        elif role == "assistant":
            for call in reversed(tool_calls_of(msg)):
                _note_call(
                    anchors,
                    call,
                    roles.of(call_name(call)),
                    results.get(call_id(call)),
                    files,
                    seen_commands,
                    failed_output,
                )
        elif role == "tool" and len(anchors.errors) < MAX_ERRORS:
            name = names.get(str(msg.get("tool_call_id") or "")) or str(msg.get("name") or "")
            if roles.of(name) in OWN_ERROR_LINES:
                continue  # a command's error lines go with the command (see _note_call)
            for line in _error_lines(text_of(msg.get("content"))):
                if len(anchors.errors) < MAX_ERRORS and line not in anchors.errors:
                    anchors.errors.append(line)
    anchors.files = files.listed()
    anchors.instructions = merge_instructions(anchors.instructions, [])
    anchors.commands, anchors.failures = _cap_commands(
        drop_resolved(anchors.commands, failed),
        lambda command: _error_lines(failed_output[command])[:ERRORS_PER_COMMAND] if command in failed_output else None,
    )
    return anchors


def _note_user(anchors: Anchors, text: str) -> None:
    """The message among the recent user messages, and its instruction, if it gives one."""
    if len(anchors.users) >= MAX_USERS:
        return
    clipped = _clip(text, USER_CHARS)
    if clipped:
        anchors.users.append(clipped)
        if instruction_in(text, USER_CHARS):
            anchors.instructions.append([instruction_in(redact_secrets(text), USER_CHARS) or clipped, ""])


class _Files:
    """Paths seen walking newest first: written or patched ones and read ones, capped apart."""

    def __init__(self) -> None:
        self.entries: dict[str, list[str]] = {}
        self.counts = {"read": 0, "written": 0}

    def note(self, action: str, path: str) -> None:
        kind = "read" if action == "read" else "written"
        entry = self.entries.get(path)
        if entry is not None:
            if entry[0] == "read" and kind == "written" and self.counts["written"] < MAX_WRITTEN:
                entry[0] = action
                self.counts["written"] += 1
            return
        if self.counts[kind] < (MAX_FILES if kind == "read" else MAX_WRITTEN):
            self.entries[path] = [action, path]
            self.counts[kind] += 1

    def listed(self) -> list[list[str]]:
        return list(self.entries.values())


def _note_call(
    anchors: Anchors,
    call: dict[str, Any],
    role: ToolRole | None,
    result: Message | None,
    files: _Files,
    seen_commands: set[str],
    failed_output: dict[str, str],
) -> None:
    action = FILE_ACTIONS.get(role) if role is not None else None
    if action is not None:
        path = str(parsed_arguments(call).get("path") or "").strip()
        if path:
            files.note(action, redact_secrets(path))
    elif role is ToolRole.RUNS_COMMANDS:
        command = _clip(str(parsed_arguments(call).get("command") or ""), 200)
        if not command or command in seen_commands:
            return  # walking newest first: only a command's newest run counts
        seen_commands.add(command)
        output = text_of(result.get("content")) if result is not None else ""
        code = exit_code_of(result) if result is not None else None
        anchors.commands.append([command, code])
        if code != 0:
            failed_output[command] = output


def command_lines(command: list[Any], failures: dict[str, list[str]]) -> list[str]:
    cmd, code = command
    return [f"- `{cmd}` -> exit {'?' if code is None else code}"] + [f"    {e}" for e in failures.get(cmd, [])]


TITLE = f"{HEADING} (kept verbatim by hermeslite from the compacted turns)"
SECTION_TITLES = {
    "instructions": "Standing instructions and requests for later from the user, newest first (they hold for the "
    "whole session unless the user changes them):",
    "users": "User messages, newest first:",
    "written": "Files written or patched, newest first:",
    "read": "Files read, newest first:",
    "commands": "Commands, newest first:",
    "errors": "Recent error lines:",
}


def render_anchors(anchors: Anchors) -> str:
    """The appended section; empty string when there is nothing to add."""
    if anchors.is_empty():
        return ""
    given = {_norm(text) for pair in anchors.instructions for text in pair if text}  # shown above, or replaced
    sections = {
        "instructions": [render_instruction(text, note) for text, note in anchors.instructions],
        "users": [f'- "{u}"' for u in anchors.users if _norm(u) not in given],
        "written": [f"- {action} {path}" for action, path in anchors.files if is_written([action, path])],
        "read": [f"- {action} {path}" for action, path in anchors.files if not is_written([action, path])],
        "commands": [line for command in anchors.commands for line in command_lines(command, anchors.failures)],
        "errors": [f"- {e}" for e in anchors.errors],
    }
    lines = [TITLE]
    for name, items in sections.items():
        if items:
            lines += [SECTION_TITLES[name], *items]
    return "\n".join(lines)


def with_missing_anchors(summary: str, anchors: Anchors) -> str:
    """`summary` with the recorded facts it does not already carry appended, secrets masked."""
    missing = render_anchors(anchors.missing_from(summary))
    return f"{summary}\n\n{redact_secrets(missing)}" if missing else summary
