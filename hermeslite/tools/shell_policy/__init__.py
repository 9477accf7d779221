"""A parsed shell policy: which commands may run without asking, and why not.

`judge(command, boundary)` splits a bash command line into simple commands and
judges each against the boundary (working directory plus allowed roots). It is
the part of the safety model that reads what a command means; the Landlock
sandbox enforces the filesystem boundary in the kernel and cannot see remote
or whole-machine harm, which is what this policy adds.
"""

from hermeslite.tools.shell_policy.judge import judge
from hermeslite.tools.shell_policy.verdict import Boundary, Risk, Verdict

__all__ = ["Boundary", "Risk", "Verdict", "judge"]
