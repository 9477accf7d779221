"""What the terminal tool adds to a failed sandboxed command's output, so the model knows why and what to do.

A command stopped by the sandbox fails the way any program fails on a denied
write or an unreachable host; without a word about the sandbox a model
retries, or concludes the machine is broken. These notes are appended only
when the output carries the kernel's wording for such a failure.
"""

from __future__ import annotations

import re
from pathlib import Path

# What a write or a signal stopped by the sandbox prints (EACCES, EPERM, EROFS).
BLOCKED = re.compile(r"Permission denied|Operation not permitted|Read-only file system", re.IGNORECASE)
BLOCKED_NOTE = (
    "[sandbox: this command may write only inside the working directory, the temp dir and "
    "tools.writable_paths (never hermeslite's own files), and signal only processes it started; "
    "if it must do more, ask the user to run it or to allow the path]"
)
PLAN_NOTE = (
    "[plan mode: commands may write nothing but the scratch dir {scratch} (also $TMPDIR): the project, "
    "the home and /tmp are read-only until the user leaves plan mode. Do not retry the write; describe "
    "the change in your plan instead]"
)
# What resolvers, curl, pip, npm, git and the proxy print when there is no way out.
OFFLINE = re.compile(
    r"Could not resolve|Temporary failure in name resolution|Name or service not known|name resolution"
    r"|getaddrinfo|nodename nor servname|Network is unreachable|No route to host|Failed to establish a new connection"
    r"|ENOTFOUND|EAI_AGAIN|ENETUNREACH|ECONNREFUSED|Connection refused|Could not connect|Couldn.t connect"
    r"|Failed to connect|unable to access"
    r"|CONNECT tunnel failed|Tunnel connection failed|ProxyError|tools\.network_allow|Address family not supported",
    re.IGNORECASE,
)
OFFLINE_NOTE = (
    "[sandbox: commands have no network (the host's local services included) except the hosts in "
    "tools.network_allow, reached through hermeslite's proxy; a command that visibly uses the network "
    "(curl, pip install, git fetch, ssh, ...) asks the user first. If this one needs the network, say so: "
    "the user can approve it or add the host to tools.network_allow]"
)


def failure_notes(output: str, *, offline: bool, scratch: Path | None = None) -> list[str]:
    """The notes for a sandboxed command that failed with `output`; `offline`: it ran without network;
    `scratch`: it ran in plan mode, where only that folder is writable."""
    blocked = BLOCKED_NOTE if scratch is None else PLAN_NOTE.format(scratch=scratch)
    notes = [blocked] if BLOCKED.search(output) else []
    if offline and OFFLINE.search(output):
        notes.append(OFFLINE_NOTE)
    return notes
