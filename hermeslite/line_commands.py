"""The line chat's compaction commands: /compress [--preview], /uncompress, /summary [edit], /handoff.

Thin on purpose: the work is done by `hermeslite.agent.controls`, and this
module only parses the line and prints the outcome (reports on stderr, the
checkpoint itself on stdout so it can be piped or copied). `/summary edit`
opens the checkpoint in $EDITOR on a temporary file.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hermeslite.display import neutralize

if TYPE_CHECKING:
    from hermeslite.agent.loop import Agent

NAMES = ("/compress", "/uncompress", "/summary", "/handoff")
HELP = """\
          /compress --preview [focus]  what /compress would do; nothing is sent or changed
          /uncompress        undo the latest compaction (messages added since are kept)
          /summary           print the checkpoint the model reads in place of older turns
          /summary edit      edit that checkpoint in $EDITOR
          /handoff [focus]   continue in a new session seeded with a fresh checkpoint"""

OpenSession = Callable[[str], "Agent"]


@dataclass(frozen=True)
class Outcome:
    agent: Agent        # the agent to go on with (another one after /handoff)
    ok: bool              # False: the command failed, as a failed turn does


def handles(text: str) -> bool:
    return text.split(maxsplit=1)[0] in NAMES if text.strip() else False


async def run(text: str, agent: Agent, open_session: OpenSession, out: TextIO, err: TextIO) -> Outcome:
    """Run one of the commands in NAMES; `open_session(id)` gives an agent on another session."""
    name, _, rest = text.strip().partition(" ")
    args = rest.strip()
    from hermeslite.agent import controls

    if name == "/compress":
        focus, preview = controls.compress_args(args)
        if preview:
            err.write(neutralize("\n".join(controls.preview(agent, focus).lines())) + "\n")
            return Outcome(agent, True)
        result = await agent.compress_now(focus)
        return Outcome(agent, not result.aborted)
    if name == "/uncompress":
        report = controls.uncompress(agent)
        err.write(report.text + "\n")
        return Outcome(agent, True)
    if name == "/summary":
        if args == "edit":
            return Outcome(agent, await _edit(agent, err))
        if args:
            err.write("usage: /summary [edit]\n")
            return Outcome(agent, False)
        found = controls.checkpoint(agent)
        if found is None:
            err.write("No checkpoint yet: nothing has been compacted in this session.\n")
        else:
            out.write(neutralize(found.text) + "\n")
        return Outcome(agent, True)
    handoff = await controls.hand_off(agent, args or None)
    err.write(neutralize(handoff.text) + "\n")
    if handoff.session_id is None:
        return Outcome(agent, False)
    return Outcome(open_session(handoff.session_id), True)


async def _edit(agent: Agent, err: TextIO) -> bool:
    """The checkpoint in $EDITOR; saved back when it passes the checks. A refused edit stays in
    its file, whose path is given, so the user can fix it."""
    from hermeslite.agent import controls

    found = controls.checkpoint(agent)
    if found is None:
        err.write("No checkpoint to edit: nothing has been compacted in this session.\n")
        return False
    editor = os.environ.get("EDITOR", "").strip()
    if not editor:
        err.write("/summary edit needs $EDITOR (for example: export EDITOR=nano); the checkpoint is unchanged.\n")
        return False
    fd, name = tempfile.mkstemp(prefix="hermeslite-checkpoint-", suffix=".md")
    path = Path(name)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(found.text + "\n")
    status = await _run_editor(editor, path)
    if status != 0:
        path.unlink(missing_ok=True)
        err.write(f"{neutralize(editor)} exited with status {status}; the checkpoint is unchanged.\n")
        return False
    text = path.read_text(encoding="utf-8", errors="replace")
    if text.strip() == found.text.strip():
        path.unlink(missing_ok=True)
        err.write("No change: the checkpoint is as it was.\n")
        return True
    edit = controls.edit_checkpoint(agent, text)
    if not edit.accepted:
        err.write(f"Edit refused, the checkpoint is unchanged: {edit.reason}. Your text is in {path}.\n")
        return False
    path.unlink(missing_ok=True)
    err.write("Checkpoint replaced: the model reads your version from the next turn on.\n")
    return True


async def _run_editor(editor: str, path: Path) -> int:
    """Run `$EDITOR path` on the terminal and wait; 127 when it cannot be started."""
    try:
        command = [*shlex.split(editor), str(path)]
        done = await asyncio.to_thread(subprocess.run, command, check=False)
    except (OSError, ValueError):
        return 127
    return done.returncode

