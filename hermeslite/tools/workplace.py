"""Whether the working directory is a dangerous place to call a project: the home, `/`, a system folder.

The sandbox lets commands write anywhere in the working directory. Started in
`$HOME` that is every dotfile and key the user has (`rm -rf ~/.ssh` is then
"inside the project"); started in `/` or `/etc`, more. hermeslite says so at
start, and the approval policy stops trusting the sandbox there:
destructive commands ask even in `auto` mode, and code the policy cannot
read (`python3 -c ...`) asks in `ask` mode, as it would with no sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path

# A project may live below these (/opt/app, /srv/site, /home/me/code), not in them.
CONTAINERS = ("/home", "/Users", "/opt", "/srv", "/var", "/mnt", "/media", "/tmp", "/private", "/Volumes")
# Nothing below these is a project.
SYSTEM = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/proc",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
    "/System",
    "/Library",
    "/Applications",
    "/private/etc",
    "/private/var/db",
)


def risky_workplace(cwd: Path, home: Path) -> str | None:
    """One line saying why `cwd` should not be the project, or None when it is an ordinary folder."""
    here = Path(os.path.realpath(cwd))
    mine = Path(os.path.realpath(home))
    if here == mine:
        what = "your home folder"
    elif mine.is_relative_to(here):
        what = "a folder holding your home folder" if here != Path("/") else "the root of the file system"
    elif any(here == Path(p) for p in CONTAINERS) or any(here.is_relative_to(p) for p in SYSTEM):
        what = "a system folder"
    else:
        return None
    return (
        f"the working directory {here} is {what}: commands may write anything in it, so destructive "
        "commands and code the policy cannot read ask first even in auto mode; start hermeslite in a project folder"
    )
