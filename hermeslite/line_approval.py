"""Asking for approval in the line chat at a terminal: y (once), a (for this session), n (no).

The TUI answers the agent's approval requests with a dialog; the line chat
typed at a terminal answers them with a question on stderr and a line from the
same stdin the chat reads (the chat reads no line of its own while a turn
runs, so the answer cannot be taken for a message). An edit asked about under
`tools.edits: ask` shows its whole diff first, coloured on a terminal, so the
user sees what the file would become before it is written.

Only a chat on a terminal asks: a chat fed by a pipe is a script, and taking
its next line as an answer would both lose a prompt and approve what nobody
read, so there edits and commands that need a yes are refused with the hint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TextIO

from hermeslite.agent import events as ev
from hermeslite.display import neutralize
from hermeslite.tools.base import ApprovalRequest

QUESTION = "Allow? y = once, a = for this session, n = no: "
ONCE, SESSION, NO = ("y", "yes"), ("a", "always"), ("n", "no")


class LineApprovals:
    """Subscribed to the agent: each ApprovalRequested is asked on `err` and answered from `readline`
    (bytes, b"" at end of input). Scopes allowed for the session are not asked about again."""

    def __init__(self, readline: Callable[[], Awaitable[bytes]], err: TextIO, *, colour: bool) -> None:
        self._readline = readline
        self._err = err
        self._colour = colour
        self.allowed_scopes: set[str] = set()
        self._asking: set[asyncio.Task[None]] = set()  # held so a pending question is not collected

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequested):
            task = asyncio.ensure_future(self._answer(event.request, event.answer))
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)

    async def _answer(self, request: ApprovalRequest, answer: asyncio.Future[bool]) -> None:
        if request.scope in self.allowed_scopes:
            allowed = True
        else:
            allowed = await self._ask(request)
        if not answer.done():
            answer.set_result(allowed)

    async def _ask(self, request: ApprovalRequest) -> bool:
        self._write(self._question(request))
        while True:
            self._err.write(QUESTION)
            self._err.flush()
            data = await self._readline()
            if not data:  # end of input: nobody is left to say yes
                self._write("(end of input: denied)")
                return False
            reply = data.decode("utf-8", errors="replace").strip().lower()
            if reply in ONCE:
                return True
            if reply in SESSION:
                self.allowed_scopes.add(request.scope)
                return True
            if reply in NO or not reply:
                self._write(neutralize(f"Denied: {request.command}"))
                return False

    def _question(self, request: ApprovalRequest) -> str:
        lines = [
            neutralize(f"⚠ This {request.tool} call needs your approval: {request.command}"),
            neutralize(f"Why: {request.reason}."),
        ]
        if request.diff is not None:
            diff = request.diff
            if diff.text:
                from hermeslite.commands.diff_view import ansi_diff

                lines.append(ansi_diff(diff.text) if self._colour else neutralize(diff.text))
            else:
                lines.append(neutralize(diff.summary()))
            lines.append(neutralize(f"a allows every edit for the rest of this session ({request.scope})."))
        else:
            lines.append(neutralize(f"a allows, for the rest of this session: {request.scope}."))
        return "\n".join(lines)

    def _write(self, text: str) -> None:
        self._err.write(text + "\n")
        self._err.flush()
