"""The session's mode: `default`, `accept-edits` or `plan`, and what each changes.

- `default`: the approval policy (`tools.approval`, `tools.edits`) as configured.
- `accept-edits`: file edits inside the boundary and commands that stay inside
  it run without asking (`ask` is read as `auto`); what escapes still asks.
- `plan`: the model looks and proposes. The tools that change files are not
  offered (and refused if called anyway), MCP tools only where marked
  read-only, and every command runs in the kernel sandbox with nothing
  writable but a private scratch dir, so no command can change the project,
  the home or /tmp however it is written. Where there is no such sandbox,
  plan mode is refused rather than pretended.

The mode is session state, not transcript: it is kept in the session store,
survives --continue, /resume and every compaction, and reaches the model as a
line appended to the system prompt of each request sent in plan mode (see
`Agent.build_request`), never stored in the transcript.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from hermeslite.errors import UserFacingError
from hermeslite.tools.base import ToolContext
from hermeslite.tools.registry import ToolRegistry
from hermeslite.tools.sandbox import temp_dir


class Switchable(Protocol):
    """What /mode needs of an agent: its mode, and a way to change it."""

    @property
    def mode(self) -> str: ...

    def set_mode(self, name: str) -> None: ...


DEFAULT = "default"
ACCEPT_EDITS = "accept-edits"
PLAN = "plan"
MODES = (DEFAULT, ACCEPT_EDITS, PLAN)

# Appended to the system prompt in plan mode only: default and accept-edits send the stored prompt byte
# for byte, and leaving plan mode sends exactly the prompt the cache held before it.
PLAN_LINE = (
    "\n\nPlan mode is on. Explore and read as much as you need, then deliver a plan: what you would "
    "change, where and why, in steps, with the risks and open questions. Do not make the changes. The "
    "tools that edit files are not available; commands run in a sandbox where nothing is writable but "
    "a scratch dir ($TMPDIR), so a command that writes to the project, the home or /tmp fails. When the "
    "plan is ready, end your reply with it: the user approves it or asks for changes."
)
# The user's message when they approve the plan from its card.
APPROVED = "The plan is approved and plan mode is off. Carry it out now."
DESCRIPTIONS = {
    DEFAULT: "edits and commands follow tools.approval and tools.edits",
    ACCEPT_EDITS: "file edits and commands inside the project run without asking",
    PLAN: "read-only: the model plans and nothing is written, enforced by the kernel sandbox",
}


class ModeError(UserFacingError):
    """A mode that is not one of MODES, or plan mode where the kernel cannot enforce it: one line."""


def next_mode(name: str) -> str:
    """The mode Shift+Tab moves to after `name`: default, accept-edits, plan, default, ..."""
    return MODES[(MODES.index(name) + 1) % len(MODES)] if name in MODES else DEFAULT


def parse_mode(text: str) -> str:
    """A mode name as typed (`plan`, `accept-edits`, `accept_edits`); ModeError names the choices."""
    name = text.strip().lower().replace("_", "-")
    if name not in MODES:
        raise ModeError(f"unknown mode {text.strip()!r}; choose one of {', '.join(MODES)}")
    return name


def plan_refusal(why_no_sandbox: str | None) -> str:
    """The one line said when plan mode is chosen where the kernel sandbox is unavailable."""
    reason = f" ({why_no_sandbox})" if why_no_sandbox else ""
    return (
        "plan mode refused: it needs the kernel sandbox (Landlock on Linux) to keep every command from "
        f"writing, and commands here run without it{reason}"
    )


def mode_line(name: str) -> str:
    """`Mode: plan (read-only: ...)`, for /mode and /context."""
    return f"Mode: {name} ({DESCRIPTIONS.get(name, '')})"


def mode_command(agent: Switchable, args: str) -> tuple[bool, str]:
    """What /mode [name] does, for every front end: (it worked, the line to show)."""
    if not args.strip():
        choices = ", ".join(MODES)
        return True, f"{mode_line(agent.mode)}. /mode NAME switches ({choices}); Shift+Tab cycles them in the app."
    try:
        agent.set_mode(args)
    except ModeError as exc:
        return False, str(exc)
    return True, f"{mode_line(agent.mode)}."


class ModeState:
    """The mode in force and what it sets in the tool context; `save` records it with the session.

    `no_sandbox` is why commands here run without the kernel sandbox (None: they run in it);
    plan mode is refused while it is set."""

    def __init__(self, tool_ctx: ToolContext, save: Callable[[str], None], no_sandbox: str | None) -> None:
        self._ctx = tool_ctx
        self._save = save
        self._no_sandbox = no_sandbox

    @property
    def name(self) -> str:
        return self._ctx.mode

    def switch(self, name: str, *, save: bool = True) -> None:
        """Switch to `name` (raises ModeError for an unknown mode or an unavailable plan mode)."""
        name = parse_mode(name)
        if name == PLAN and self._ctx.sandbox is None:
            raise ModeError(plan_refusal(self._no_sandbox))
        if name == PLAN and self._ctx.scratch is None:
            scratch = Path(tempfile.mkdtemp(prefix="hermeslite-plan-", dir=temp_dir()))
            atexit.register(shutil.rmtree, scratch, True)  # however the session ends
            self._ctx.scratch = scratch
        if name != PLAN:
            self.remove_scratch()
        self._ctx.mode = name
        if save:
            self._save(name)

    def withheld(self, registry: ToolRegistry) -> set[str] | None:
        """The tools not offered in this mode (None: every tool is offered)."""
        return registry.plan_withheld() if self.name == PLAN else None

    def system_message(self, system: dict[str, Any]) -> dict[str, Any]:
        """The system message as this mode sends it: the stored one, with PLAN_LINE in plan mode."""
        content = system.get("content")
        if self.name != PLAN or not isinstance(content, str):
            return system
        return {**system, "content": content + PLAN_LINE}

    def remove_scratch(self) -> None:
        """Delete plan mode's scratch dir (on leaving plan mode, and when the session ends)."""
        scratch, self._ctx.scratch = self._ctx.scratch, None
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
