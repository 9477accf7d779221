"""The entry point: a command line in, the worst verdict over its simple commands out."""

from __future__ import annotations

from hermeslite.tools.shell_policy.call import NO_INPUT
from hermeslite.tools.shell_policy.lex import lex
from hermeslite.tools.shell_policy.parse import parse
from hermeslite.tools.shell_policy.tokens import ParseError
from hermeslite.tools.shell_policy.verdict import Boundary, Verdict
from hermeslite.tools.shell_policy.walk import Walker


def judge(command: str, boundary: Boundary) -> Verdict:
    """How risky `command` is when run in `boundary.cwd`, with the reason for anything above ordinary.

    Text bash would refuse is over-read: every command found is judged and every
    word is taken as a possible target, and the verdict is at least opaque.
    """
    walker = Walker(boundary)
    state = walker.start_state()
    try:
        script = parse(lex(command))
    except ParseError as exc:
        walker.over_read(command, state, str(exc))
    else:
        walker.script(script, state, NO_INPUT)
    return walker.result()
