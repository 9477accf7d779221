"""Pruning old sessions' snapshots from a project's shadow repository, by age and by size.

Run at most once a day per project, after a session's first snapshot. A
session whose last snapshot is older than `keep_days` loses its snapshots;
then, while the store is over its size limit, the oldest sessions go, except
those snapshotted in the last day (another process may be working in them)
and the ones the caller keeps (its own). Their turn log rows stay: a restore
of a pruned snapshot says it is gone.
"""

from __future__ import annotations

import time

from .shadow_repo import ShadowRepo

RECENT_S = 86_400  # a session snapshotted this recently keeps its snapshots whatever the store's size


def prune(repo: ShadowRepo, *, keep_days: float, max_bytes: int, keep: set[str], now: float | None = None) -> list[str]:
    """Drop old sessions' snapshots (see the module docstring); returns the sessions dropped."""
    now = time.time() if now is None else now
    with repo.git.locked():
        rows = [row for row in repo.sessions() if row[0] not in keep]
        old = [sid for sid, when in rows if now - when > keep_days * 86_400]
        dropped = list(old)
        if old:
            repo.drop(old)
        rest = [sid for sid, when in rows if sid not in old and now - when > RECENT_S]
        while rest and repo.size_bytes() > max_bytes:
            oldest = rest.pop(0)
            repo.drop([oldest])
            dropped.append(oldest)
        return dropped
