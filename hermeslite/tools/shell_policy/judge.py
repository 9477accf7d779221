"""The entry point: a command line in, the worst verdict over its simple commands out."""

from __future__ import annotations

from hermeslite.tools.shell_policy.verdict import Boundary, Verdict
from hermeslite.tools.shell_policy.walk import Walker


def judge(command: str, boundary: Boundary, *, sandbox: bool = False) -> Verdict:
    """How risky `command` is when run in `boundary.cwd`, with the reason for anything above ordinary;
    `sandbox`: it will run confined by the kernel sandbox, which holds what the policy cannot know.

    Text bash would refuse is over-read: every command found is judged and every
    word is taken as a possible target, and the verdict is at least opaque.
    """
    walker = Walker(boundary)
    walker.walk_text(command, walker.start_state())
    return walker.result(sandbox)
