"""What the user sent before, kept across runs so Up recalls last session's messages too.

One JSON string per line in the state directory, newest last, trimmed to
LIMIT entries. Losing it costs nothing, so every failure is ignored.
"""

from __future__ import annotations

import json
from pathlib import Path

from hermeslite.paths import ensure_dir, state_dir

LIMIT = 500
FILE = "prompt_history.jsonl"


def history_path() -> Path:
    return state_dir() / FILE


def load(path: Path | None = None) -> list[str]:
    try:
        lines = (path or history_path()).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    entries = []
    for line in lines[-LIMIT:]:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, str) and value:
            entries.append(value)
    return entries


def append(text: str, path: Path | None = None) -> None:
    target = path or history_path()
    try:
        ensure_dir(target.parent)
        with target.open("a", encoding="utf-8") as f:
            f.write(json.dumps(text, ensure_ascii=False) + "\n")
        if target.stat().st_size > LIMIT * 400:  # trim now and then, not on every write
            kept = load(target)
            target.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in kept), encoding="utf-8")
    except OSError:
        pass
