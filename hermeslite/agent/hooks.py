"""The user's hooks at the points of a session where they run (docs/hooks.md has the whole contract).

One method per event, each returning what the agent should do. With no hook
configured for an event its method returns at once and no process starts,
so a session without hooks pays nothing. The commands of one event run at
the same time (`tools.hooks.process`), each with the event as JSON on stdin
in Claude Code's shape; their answers are merged: any block blocks, reasons
and contexts are joined. What a hook adds for the model goes into the
transcript, redacted like tool output, under a line naming the event, so the
model knows where it came from and a resumed session replays it unchanged.
Each hook that failed, timed out or answered something unreadable is one
warning line (a Notice), and its event goes on as if it had said nothing.
Before any hook runs, the session's transcript file (`transcript_path`,
store/hook_transcript.py) is brought up to date from the agent's messages.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hermeslite.context.clip import clip_line
from hermeslite.context.hook_context import framed, with_parts
from hermeslite.context.messages import Message
from hermeslite.context.redact import redact_secrets
from hermeslite.store.hook_transcript import HookTranscript
from hermeslite.tools.base import ApprovalRequest, ToolContext, ToolResult, deny_all
from hermeslite.tools.environment import tool_environment
from hermeslite.tools.hooks.matcher import matches
from hermeslite.tools.hooks.process import run_hook
from hermeslite.tools.hooks.reply import HookReply, read_reply
from hermeslite.tools.hooks.settings import HookCommand, HookTable

from . import events as ev

MAX_STOP_BLOCKS = 8  # Stop hooks may send the model back to work this many times in a row (as Claude Code)
SHOWN_COMMAND = 120  # characters of a hook's command in a warning line
# Claude Code's names for our approval modes, for hooks that read `permission_mode`.
PERMISSION_MODES = {"ask": "default", "auto": "auto", "allow": "bypassPermissions", "deny": "dontAsk"}


@dataclass(frozen=True)
class PromptGate:
    """What becomes of a prompt: blocked with a reason for the user, or sent as `content`."""

    content: str
    block: str | None = None


@dataclass(frozen=True)
class CompactGate:
    block: str | None = None  # the reason a PreCompact hook gave for stopping the compaction
    focus: str | None = None  # the focus to compact with: the user's, and what hooks added


def _nowhere(event: ev.Event) -> None:
    """Where events go before an agent takes the hooks on."""


def _no_messages() -> list[Message]:
    """The transcript before an agent takes the hooks on."""
    return []


class Hooks:
    """One session's hooks; `emit` is the agent's event stream and `messages` its transcript (both set
    by the agent)."""

    def __init__(
        self,
        table: HookTable,
        *,
        session_id: str,
        cwd: Path,
        approval: str,
        hidden_env: Iterable[str] = (),
        pass_env: Iterable[str] = (),
        model: Callable[[], str] = lambda: "",
        opened: str = "startup",
    ) -> None:
        self.table = table
        self.session_id = session_id
        self.cwd = cwd
        self.approval = approval
        self.hidden_env, self.pass_env = tuple(hidden_env), tuple(pass_env)
        self.model = model
        self.opened = opened  # SessionStart's source: startup (a new session) or resume
        self.emit: ev.Subscriber = _nowhere
        self.messages: Callable[[], list[Message]] = _no_messages
        self._transcript = HookTranscript(session_id)  # the `transcript_path` file, written when a hook runs
        self._started = False  # SessionStart has run
        self._pending: str | None = None  # SessionStart's context, waiting for a prompt that is let through
        self._halt: str | None = None  # a tool hook's `continue: false`, until the agent takes it
        self._stop_blocks = 0  # Stop hooks' requests to go on, in a row

    # -- prompts -----------------------------------------------------------------

    async def admit_prompt(self, prompt: str) -> PromptGate:
        """SessionStart (at the session's first prompt) and UserPromptSubmit: the prompt as it will be
        sent, with what they added, or the reason a hook blocked it (said to the user)."""
        self._stop_blocks, self._halt = 0, None
        if not self._started:
            self._started = True
            fields = {"source": self.opened, "model": self.model()}
            started = await self._fire("SessionStart", self.opened, fields)
            self._tell_user("SessionStart", started)
            self._pending = framed("SessionStart", _joined(r.context for r in started))
        replies = await self._fire("UserPromptSubmit", None, {"prompt": prompt}, goes_on="the prompt goes on")
        if blocking := [r for r in replies if r.block is not None or r.halt is not None]:
            reason = _joined(r.block if r.block is not None else r.halt for r in blocking) or "no reason given"
            self.emit(ev.Notice(f"A UserPromptSubmit hook blocked this prompt: {reason}", "warning"))
            return PromptGate(prompt, block=reason)
        added = [self._pending, framed("UserPromptSubmit", _joined(r.context for r in replies))]
        self._pending = None
        return PromptGate(with_parts(prompt, added))

    # -- tool calls --------------------------------------------------------------

    async def around_tool(
        self,
        call_id: str,
        name: str,
        arguments: str | dict[str, Any],
        ctx: ToolContext,
        execute: Callable[[], Awaitable[ToolResult]],
    ) -> ToolResult:
        """PreToolUse, the call (unless blocked or refused), then PostToolUse, with what they added
        next to the result. A call whose arguments are not a JSON object goes straight to `execute`:
        the registry refuses it before any tool runs."""
        tool_input = _json_object(arguments)
        if tool_input is None or not ({"PreToolUse", "PostToolUse"} & self.table.keys()):
            return await execute()
        base = {"tool_name": name, "tool_input": tool_input, "tool_use_id": call_id}
        before = await self._fire("PreToolUse", name, base, plain=False, goes_on=f"the {name} call goes on")
        self._take_halts(before)
        notes = [framed("PreToolUse", _joined(r.context for r in before))]
        result = await _refusal(before, ctx, name, tool_input)
        if result is None:
            result = await execute()
            response = {"output": result.content, "is_error": result.is_error, "exit_code": result.exit_code}
            after = await self._fire("PostToolUse", name, {**base, "tool_response": response}, plain=False)
            self._take_halts(after)
            notes.append(framed("PostToolUse", _joined(text for r in after for text in (r.block, r.context))))
        return replace(result, content=with_parts(result.content, notes)) if any(notes) else result

    def take_halt(self) -> str | None:
        """The stop reason of a tool hook that said `continue: false` since the last call, if one did."""
        halt, self._halt = self._halt, None
        return halt

    def _take_halts(self, replies: list[HookReply]) -> None:
        for reply in replies:
            if reply.halt is not None and self._halt is None:
                self._halt = reply.halt or "no reason given"

    # -- the end of a turn -------------------------------------------------------

    async def stop(self, last_message: str) -> str | None:
        """When the model ends its turn: the message that sends it back to work, if a Stop hook
        asks for more (at most MAX_STOP_BLOCKS times in a row), else None."""
        fields = {"stop_hook_active": self._stop_blocks > 0, "last_assistant_message": last_message}
        replies = await self._fire("Stop", None, fields, plain=False, goes_on="the turn ends")
        reason = _joined(r.block if r.block is not None else r.context for r in replies)
        if not reason or any(r.halt is not None for r in replies):
            self._stop_blocks = 0
            return None
        if self._stop_blocks >= MAX_STOP_BLOCKS:
            self._stop_blocks = 0
            self.emit(
                ev.Notice(f"Stop hooks asked for more {MAX_STOP_BLOCKS} times in a row; the turn ends here.", "warning")
            )
            return None
        self._stop_blocks += 1
        self.emit(ev.Notice(f"A Stop hook sends the model back to work: {clip_line(reason, 200)}"))
        return framed("Stop", reason, head="[a Stop hook asks you to go on before you end the turn]")

    # -- compaction --------------------------------------------------------------

    async def pre_compact(self, trigger: str, focus: str | None) -> CompactGate:
        """Before a compaction (`trigger`: preflight, reactive, manual or idle): a block, or the focus to use."""
        kind = _compact_kind(trigger)
        fields = {"trigger": kind, "custom_instructions": focus or ""}
        replies = await self._fire("PreCompact", kind, fields, goes_on="the compaction goes on")
        if any(r.block is not None for r in replies):
            return CompactGate(block=_joined(r.block for r in replies) or "no reason given", focus=focus)
        added = _joined(r.context for r in replies)
        return CompactGate(focus="; ".join(text for text in (focus, added) if text) or None)

    async def post_compact(self, trigger: str, summary: str | None) -> None:
        kind = _compact_kind(trigger)
        replies = await self._fire("PostCompact", kind, {"trigger": kind, "compact_summary": summary or ""})
        self._tell_user("PostCompact", replies)

    # -- running them ------------------------------------------------------------

    async def _fire(
        self, event: str, target: str | None, fields: dict[str, Any], *, plain: bool = True, goes_on: str = ""
    ) -> list[HookReply]:
        """Run every command of `event` whose group matches `target` (None: every group), at once,
        and read their replies; `plain`: plain stdout is context for this event."""
        commands = self._commands(event, target)
        if not commands:
            return []
        transcript = self._current_transcript()
        data = json.dumps(self._common(event) | {"transcript_path": transcript} | fields).encode()
        env = tool_environment(os.environ, hidden=self.hidden_env, passed=self.pass_env) | {
            "HERMESLITE_PROJECT_DIR": str(self.cwd),
            "CLAUDE_PROJECT_DIR": str(self.cwd),
            "HERMESLITE_SESSION_ID": self.session_id,
            "HERMESLITE_TRANSCRIPT_PATH": transcript,
        }
        runs = await asyncio.gather(
            *(run_hook(c.argv(), data, cwd=self.cwd, env=env, timeout=c.timeout) for c in commands)
        )
        replies = [read_reply(run, plain_context=plain) for run in runs]
        for command, reply in zip(commands, replies, strict=True):
            self._report(event, command, reply, goes_on)
        return replies

    def _current_transcript(self) -> str:
        """The path of the transcript file, brought up to date for the hooks about to run. A file that
        cannot be written is one warning line; the hooks still run and get its path."""
        try:
            return str(self._transcript.write(self.messages()))
        except OSError as exc:
            self.emit(ev.Notice(f"The transcript file for hooks could not be written: {exc}", "warning"))
            return str(self._transcript.path)

    def _commands(self, event: str, target: str | None) -> list[HookCommand]:
        """The commands to run, each once however many groups name it (as Claude Code dedupes)."""
        found: dict[str, HookCommand] = {}
        for group in self.table.get(event, ()):
            if target is None or matches(group.matcher, target):
                for command in group.commands:
                    found.setdefault(command.command, command)
        return list(found.values())

    def _common(self, event: str) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "cwd": str(self.cwd),
            "permission_mode": PERMISSION_MODES.get(self.approval, "default"),
            "hook_event_name": event,
        }

    def _report(self, event: str, command: HookCommand, reply: HookReply, goes_on: str) -> None:
        """One warning line for what went wrong with one hook; its systemMessage for the user."""
        shown = clip_line(command.command, SHOWN_COMMAND)
        if reply.problems:
            then = f"; {goes_on}" if goes_on and reply.block is None else ""
            self.emit(ev.Notice(f"{event} hook `{shown}`: {'; '.join(reply.problems)}{then}", "warning"))
        if reply.message:
            self.emit(ev.Notice(f"{event} hook `{shown}`: {reply.message}"))

    def _tell_user(self, event: str, replies: list[HookReply]) -> None:
        """Events that cannot block show an exit-2 reason to the user, as Claude Code does."""
        for reply in replies:
            if reply.block is not None:
                self.emit(ev.Notice(f"{event} hook: {reply.block}", "warning"))


def _joined(texts: Iterable[str | None]) -> str:
    return "\n".join(text for text in texts if text)


def _compact_kind(trigger: str) -> str:
    """Claude Code's trigger words: /compress is manual, preflight and reactive compactions are auto."""
    return "manual" if trigger == "manual" else "auto"


def _json_object(arguments: str | dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(arguments, dict):
        return arguments
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


async def _refusal(
    before: list[HookReply], ctx: ToolContext, name: str, tool_input: dict[str, Any]
) -> ToolResult | None:
    """What a call gets instead of running: a PreToolUse hook's block, or a no to a hook's question."""
    if blocks := [reply.block for reply in before if reply.block is not None]:
        reason = redact_secrets(_joined(blocks) or "no reason given")
        return ToolResult.refusal(f"error: blocked by a PreToolUse hook: {reason}")
    asked = next((reply.ask for reply in before if reply.ask is not None), None)
    if asked is not None and (refusal := await _confirm(ctx, name, tool_input, asked)):
        return ToolResult.refusal(refusal)
    return None


async def _confirm(ctx: ToolContext, name: str, tool_input: dict[str, Any], reason: str) -> str | None:
    """A PreToolUse hook's `ask`: the user's yes (None) or the refusal the model reads. Only the
    question is added: the call still goes through its own approval and the sandbox after a yes."""
    why = f"a PreToolUse hook asks first{': ' + redact_secrets(reason) if reason else ''}"
    shown = str(tool_input.get("command") or tool_input.get("path") or json.dumps(tool_input))
    request = ApprovalRequest(tool=name, command=shown, reason=why, scope=f"{name} calls that {why}")
    if ctx.approval_policy == "deny":
        return f"error: refused ({why}): the approval policy is deny (tools.approval: deny)"
    if ctx.approve is deny_all:
        return f"error: denied ({why}): no one can approve it in headless mode"
    if await ctx.approve(request):
        return None
    return f"error: the user denied this call ({why}); do not retry it, ask the user how to proceed"
