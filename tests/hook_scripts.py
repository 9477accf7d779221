"""Hook commands for the tests: small bash scripts written to a folder, and what they were sent.

block = script(folder, "block.sh", 'echo "not here" >&2; exit 2')
seen = recording(folder, "seen")            # appends each input it gets to seen.jsonl
inputs(folder, "seen")                      # those inputs, parsed, in order
on("PreToolUse", block, matcher="terminal") # the `hooks:` block that runs it
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def script(folder: Path, name: str, body: str) -> str:
    """An executable bash script `folder/name` running `body`; returns its path, the hook command."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def recording(folder: Path, name: str, then: str = "exit 0") -> str:
    """A hook that appends the JSON it is sent (one line) to `folder/name.jsonl`, then runs `then`."""
    log = folder / f"{name}.jsonl"
    return script(folder, f"{name}.sh", f'{{ cat; echo; }} >> "{log}"\n{then}')


def inputs(folder: Path, name: str) -> list[dict[str, Any]]:
    """What the `recording` hook `name` was sent, in order."""
    log = folder / f"{name}.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def on(event: str, *commands: str, matcher: str | None = None, timeout: float | None = None) -> dict[str, Any]:
    """`{event: [group]}`: one group running `commands`, for a `hooks:` block."""
    hooks = [{"type": "command", "command": c, **({"timeout": timeout} if timeout else {})} for c in commands]
    group: dict[str, Any] = {"hooks": hooks}
    if matcher is not None:
        group["matcher"] = matcher
    return {event: [group]}


def replying(folder: Path, name: str, reply: dict[str, Any], code: int = 0) -> str:
    """A hook that reads its input and prints `reply` as JSON, exiting with `code`."""
    return script(folder, name, f"cat > /dev/null\ncat <<'EOF'\n{json.dumps(reply)}\nEOF\nexit {code}")


def live_in_group(pgid: int) -> list[int]:
    """Pids of processes in group `pgid` that are still running (zombies waiting for a reaper are not)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found
