"""hermeslite's terminal tool run in a process of its own: from another copy of the package, or as another user.

`run_host` starts `python -c HOST` with the environment and `sys.path` the
test chooses, runs each command through the real terminal tool there (in the
given approval and sandbox mode, headless) and returns what each printed,
plus where that process imported hermeslite from and what it said at start.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

IMPORTS = """
import hermeslite
from hermeslite.tools.base import ToolContext
from hermeslite.tools.sandbox import assess
from hermeslite.tools.shell_policy import Boundary
from hermeslite.tools.terminal import TerminalTool
"""

HOST = (
    """
import asyncio, json, sys
from pathlib import Path
spec = json.loads(sys.argv[1])
"""
    + IMPORTS
    + """

cwd, home = Path(spec["cwd"]), Path(spec["home"])
assessed = assess(spec["sandbox"], spec["writable"], cwd)
ctx = ToolContext(
    cwd=cwd, approval_policy=spec["mode"], terminal_timeout=60, output_limit=8000,
    boundary=Boundary(cwd, home, (Path(spec["tmp"]), *map(Path, spec["writable"]))), sandbox=assessed.sandbox,
)

async def main():
    return [(await TerminalTool().run({"command": c}, ctx)).content for c in spec["commands"]]

print(json.dumps({"package": hermeslite.__file__, "warning": assessed.warning,
                  "sandboxed": assessed.sandbox is not None, "results": asyncio.run(main())}))
"""
)


def run_host(
    commands: list[str],
    *,
    cwd: Path,
    home: Path,
    tmp: Path,
    env: dict[str, str],
    mode: str = "auto",
    sandbox: str = "auto",
    writable: tuple[str, ...] = (),
    python: str = sys.executable,
    prefix: tuple[str, ...] = (),
) -> dict:
    """Run `commands` in a new hermeslite process (started by `prefix`, e.g. setpriv); its JSON report."""
    spec = {
        "cwd": str(cwd),
        "home": str(home),
        "tmp": str(tmp),
        "mode": mode,
        "sandbox": sandbox,
        "writable": list(writable),
        "commands": commands,
    }
    done = subprocess.run(
        [*prefix, python, "-c", HOST, json.dumps(spec)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def host_libraries() -> list[Path]:
    """The installed third-party modules (files or package dirs) the host process imports.

    A test running the host as another user copies these where that user can
    read them: the test's own venv may sit in a directory only its owner can
    enter (CI builds it under `mktemp -d`, mode 700).
    """
    purelib = sysconfig.get_paths()["purelib"]
    listing = (
        "import sys\n" + IMPORTS + "\nfor m in list(sys.modules.values()):\n"
        "    f = getattr(m, '__file__', None) or ''\n"
        f"    if f.startswith({purelib!r}) and '.' not in m.__name__: print(f)\n"
    )
    done = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True, check=True)
    found = [Path(line) for line in done.stdout.splitlines()]
    return sorted({f.parent if f.name == "__init__.py" else f for f in found if "__editable__" not in f.name})
