"""Another process holding a session open, as a second hermeslite would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Claims the session, says so, and waits for a line on stdin: a line appends a message before the store
# closes; end of input just closes it.
_HOLDER = """
import sys
from pathlib import Path
from hermeslite.store.sessions import SessionStore
store = SessionStore(Path(sys.argv[1]))
store.claim(sys.argv[2])
print("holding", flush=True)
if sys.stdin.readline():
    store.append_message(sys.argv[2], {"role": "user", "content": "from the holder"})
store.close()
"""


def start_holder(path: Path, session_id: str) -> subprocess.Popen:
    """A process that has claimed `session_id` in the store at `path`; returns once the claim is made.

    Release it with `communicate("go\\n")` (it appends "from the holder" first) or `communicate("")`.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path), session_id],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding", proc.stderr
    return proc
