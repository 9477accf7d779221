"""Transcript rows: JSON encoding, titles, and the repair applied when a session is loaded.

A process can die between writing an assistant message with tool calls and
writing their results. Providers reject such a transcript, so loading puts a
stub result after each unanswered call (saying what happened, as an `error: `
result the model can act on) and then drops anything orphaned. A process can
also die while a reply streams, leaving the user's message with no answer;
the next turn would then send two user messages in a row, so loading puts a
short assistant note after it (not after a `!command`, which is never
answered). The user's text stays as it was.

A row that is not a readable message (hand edits, a bug, bit rot) is skipped
with a note rather than making the whole session unloadable.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermeslite.context.attachments import split_attachments
from hermeslite.context.call_ids import unique_call_ids
from hermeslite.context.clip import clip_end
from hermeslite.context.hook_context import split_hook_context
from hermeslite.context.messages import ARCHIVE_KEY, SUMMARY_KEY, Message, call_id, is_summary, text_of, tool_calls_of
from hermeslite.context.prune import RECALL_MARK
from hermeslite.context.sanitize import sanitize_tool_pairs
from hermeslite.context.user_command import user_command_of

from .todos import SNAPSHOT_OPEN

INTERRUPTED_TOOL_TEXT = "error: interrupted before this tool finished (session was restored)"
NO_SAVED_REPLY = "[no reply was saved for this message: the session stopped before the answer was complete]"
ROLES = ("system", "user", "assistant", "tool")
TITLE_CHARS = 200  # what a title keeps of its message; each list cuts it to its own width


class BadRow(ValueError):
    """A stored row that is not a message; `str()` says why."""


def read_row(text: str) -> Message:
    """The message stored as `text`; BadRow when it is not JSON of a message with a known role."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        raise BadRow("not valid JSON") from None
    if not isinstance(value, dict):
        raise BadRow(f"a JSON {type(value).__name__}, not a message")
    if value.get("role") not in ROLES:
        raise BadRow(f"unknown role {value.get('role')!r}")
    return value


@dataclass(frozen=True)
class RestoredTranscript:
    """A loaded transcript and what the user should hear about loading it (rows skipped)."""

    messages: list[Message]
    notes: list[str]


def restore_rows(session_id: str, rows: list[tuple[int, str]]) -> RestoredTranscript:
    """The transcript stored as `(seq, json)` rows, repaired, skipping (with a note) rows that are not messages."""
    messages, skipped = [], []
    for seq, text in rows:
        try:
            messages.append(read_row(text))
        except BadRow as exc:
            skipped.append(f"#{seq + 1}: {exc}")
    notes = []
    if skipped:
        shown = "; ".join(skipped[:3]) + (f"; and {len(skipped) - 3} more" if len(skipped) > 3 else "")
        notes.append(
            f"session {session_id}: skipped {len(skipped)} unreadable stored message(s) ({shown}); "
            "they stay in the database and the rest of the session is loaded"
        )
    return RestoredTranscript(repair_transcript(messages), notes)


def repair_transcript(messages: list[Message]) -> list[Message]:
    """A provider-valid copy: calls sharing an id told apart, stub results for unanswered calls, orphans
    dropped, unanswered users noted."""
    return _answer_lone_users(sanitize_tool_pairs(_stub_unanswered_calls(unique_call_ids(messages))))


def _answer_lone_users(messages: list[Message]) -> list[Message]:
    """A note from the assistant after each real user message that no reply follows (DESIGN invariant 3).

    Not after a summary, which was never a question, nor after a `!command`'s output, which never
    gets a reply by design: in a live session the next message follows it directly, as it does here.
    """
    out: list[Message] = []
    for i, msg in enumerate(messages):
        out.append(msg)
        following = messages[i + 1].get("role") if i + 1 < len(messages) else None
        asked = msg.get("role") == "user" and not is_summary(msg) and user_command_of(msg) is None
        if asked and following in (None, "user"):
            out.append({"role": "assistant", "content": NO_SAVED_REPLY})
    return out


def _stub_unanswered_calls(messages: list[Message]) -> list[Message]:
    """A stub result for each call no result answers, right after the results the call's message did
    get, so the tool group stays together even when the user typed on after a crash."""
    out: list[Message] = []
    i, n = 0, len(messages)
    while i < n:
        msg = messages[i]
        out.append(msg)
        i += 1
        calls = tool_calls_of(msg) if msg.get("role") == "assistant" else []
        if not calls:
            continue
        answered: set[str] = set()
        while i < n and messages[i].get("role") == "tool":
            answered.add(str(messages[i].get("tool_call_id") or ""))
            out.append(messages[i])
            i += 1
        for call in calls:
            cid = call_id(call)
            if cid and cid not in answered:
                answered.add(cid)
                out.append({"role": "tool", "tool_call_id": cid, "content": INTERRUPTED_TOOL_TEXT})
    return out


def dumps_message(message: Message) -> str:
    """JSON of a message with every key; odd values (SDK objects) become dicts or strings."""
    text = json.dumps(message, ensure_ascii=False, default=_json_default)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: keep them as \u escapes, which round-trip
        text = json.dumps(message, ensure_ascii=True, default=_json_default)
    return text


def _json_default(value: Any) -> Any:
    for method in ("model_dump", "dict", "to_dict"):
        fn = getattr(value, method, None)
        if callable(fn):
            with contextlib.suppress(Exception):
                return fn()
    if isinstance(value, (set, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    return str(value)


def title_from(message: Message) -> str | None:
    """A session title from a real user message (not a summary, no todo snapshot, no attached
    files' text, no hook's context), or None."""
    if message.get("role") != "user" or message.get(SUMMARY_KEY):
        return None
    command = user_command_of(message)
    typed = split_attachments(text_of(message.get("content")).split(SNAPSHOT_OPEN)[0])[0]
    typed = split_hook_context(typed)[0]
    source = f"!{command[0]}" if command else plain_text(typed)
    text = " ".join(source.split())
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate cannot be stored as TEXT
    if not text:
        return None
    return clip_end(text, TITLE_CHARS)


_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")  # [text](url) and ![alt](src): the text
_EMPHASIS = re.compile(r"(?<![\w*~])(\*{1,3}|~~)(?=\S)(.+?)(?<=\S)\1(?![\w*~])")  # **bold**, *it*, ~~gone~~
_LINE_MARK = re.compile(r"^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d+[.)][ \t]+)", re.MULTILINE)


def plain_text(markdown: str) -> str:
    """What Markdown reads as, for a title: heading, quote and list marks, emphasis, backticks and
    link targets go (`**Fix** the `parser`` -> `Fix the parser`). Underscores stay, since they are
    far more often in names (`__init__.py`) than emphasis."""
    text = _LINE_MARK.sub("", _LINK.sub(r"\1", markdown))
    return _EMPHASIS.sub(r"\2", text).replace("`", "")


def referenced_ids(messages: list[Message]) -> set[str]:
    """Archive ids a transcript points to: its placeholders' recall ids and pruned messages' references."""
    refs = {str(m[ARCHIVE_KEY]) for m in messages if m.get(ARCHIVE_KEY)}
    for message in messages:
        refs.update(RECALL_MARK.findall(dumps_message(message)))
    return refs
