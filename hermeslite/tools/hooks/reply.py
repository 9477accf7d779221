"""What a hook answered, read the way Claude Code reads it, so existing hook scripts work.

- exit 2 blocks; the reason is the JSON's when it gives one, else stderr.
- stdout that starts with `{` is a JSON object of fields: `decision: block`
  and `reason`; `continue: false` and `stopReason`; `systemMessage` for the
  user; `hookSpecificOutput` with `permissionDecision` (allow, deny, ask),
  `permissionDecisionReason` and `additionalContext`.
- other stdout is plain text, which some events take as context.
- any other exit code is a failure that blocks nothing, unless stdout is a
  valid JSON object, which then decides alone.

Whatever is ignored says why in `problem`, one line for the user: a failure,
a timeout, JSON that does not parse or has a field of the wrong kind. What
reaches the model is capped at CONTEXT_LIMIT characters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .process import HookRun

BLOCK_EXIT = 2
CONTEXT_LIMIT = 10_000  # characters of one hook's context or reason, as Claude Code caps them
NO_REASON = "no reason given"
UNSUPPORTED = ("updatedInput", "updatedToolOutput", "updatedMCPToolOutput")


@dataclass(frozen=True)
class HookReply:
    block: str | None = None  # the reason, when it blocks (exit 2, decision: block, permissionDecision: deny)
    ask: str | None = None  # permissionDecision: ask, with its reason ("" when it gave none)
    context: str | None = None  # additionalContext, or plain stdout where the event takes it
    halt: str | None = None  # continue: false, with its stopReason ("" when it gave none)
    message: str | None = None  # systemMessage, for the user
    problems: tuple[str, ...] = field(default_factory=tuple)  # what was ignored and why, one line each


def read_reply(run: HookRun, *, plain_context: bool) -> HookReply:
    """The reply of a finished (or failed) run; `plain_context`: plain stdout is context for this event."""
    if run.exit_code is None:
        return HookReply(problems=(run.failure or "did not finish",))
    text = run.stdout.strip()
    problems: list[str] = []
    meant_as_json = text.startswith("{")  # then it is never context, even when it does not parse
    fields = _parse(text, problems) if meant_as_json else None
    if run.exit_code == BLOCK_EXIT:
        reason = (fields.block if fields else None) or run.stderr.strip() or NO_REASON
        return _reply(fields, problems, block=reason)
    if run.exit_code != 0 and fields is None:
        return HookReply(problems=(*problems, _failed(run)))
    if fields is None:
        context = text if plain_context and text and not meant_as_json else None
        return HookReply(context=capped(context) if context else None, problems=tuple(problems))
    return _reply(fields, problems, block=fields.block)


def _failed(run: HookRun) -> str:
    lines = run.stderr.strip().splitlines()
    return f"exited with {run.exit_code}" + (f": {lines[0].strip()}" if lines else "")


@dataclass
class _Fields:
    block: str | None = None
    ask: str | None = None
    context: str | None = None
    halt: str | None = None
    message: str | None = None


def _parse(text: str, problems: list[str]) -> _Fields | None:
    """The fields of a JSON object on stdout; None (and a problem) when it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        problems.append(f"printed invalid JSON ({exc}); ignored")
        return None
    if not isinstance(data, dict):
        problems.append("printed JSON that is not an object; ignored")
        return None
    specific = _take(data, "hookSpecificOutput", dict, problems) or {}
    out = _Fields(
        context=_take(specific, "additionalContext", str, problems),
        message=_take(data, "systemMessage", str, problems),
    )
    reason = _take(data, "reason", str, problems)
    decision = _take(data, "decision", str, problems)
    if decision == "block":
        out.block = reason or NO_REASON
    elif decision not in (None, "approve"):
        problems.append(f'decision must be "block", got {decision!r}; ignored')
    permission = _take(specific, "permissionDecision", str, problems)
    why = _take(specific, "permissionDecisionReason", str, problems) or ""
    if permission == "deny":
        out.block = why or reason or NO_REASON
    elif permission == "ask":
        out.ask = why
    elif permission not in (None, "allow"):
        problems.append(f"permissionDecision {permission!r} is not supported (allow, deny or ask); ignored")
    if _take(data, "continue", bool, problems) is False:
        out.halt = _take(data, "stopReason", str, problems) or ""
    problems += [
        f"{name} is not supported; the call runs as the model sent it" for name in UNSUPPORTED if name in specific
    ]
    return out


def _take(data: dict[str, Any], key: str, kind: type, problems: list[str]) -> Any:
    """`data[key]` when it is of `kind`; None when absent, null or of another kind (then a problem)."""
    value = data.get(key)
    if value is None or isinstance(value, kind):
        return value
    problems.append(f"{key} must be {_KIND_WORDS[kind]}, got {json.dumps(value)[:40]}; ignored")
    return None


_KIND_WORDS: dict[type, str] = {str: "a string", bool: "true or false", dict: "an object"}


def _reply(fields: _Fields | None, problems: list[str], *, block: str | None) -> HookReply:
    fields = fields or _Fields()
    return HookReply(
        block=capped(block) if block is not None else None,
        ask=capped(fields.ask) if fields.ask is not None else None,
        context=capped(fields.context) if fields.context else None,
        halt=fields.halt,
        message=fields.message,
        problems=tuple(problems),
    )


def capped(text: str) -> str:
    """At most CONTEXT_LIMIT characters, saying how much was cut."""
    if len(text) <= CONTEXT_LIMIT:
        return text
    return f"{text[:CONTEXT_LIMIT]}\n[... {len(text) - CONTEXT_LIMIT:,} more characters from the hook were cut]"
