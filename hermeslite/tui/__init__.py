"""The Textual front end. Importing this package is cheap: the app loads on `run_tui`.

`run_tui` is what the CLI calls when stdin and stdout are terminals and no
`-p` prompt was given.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermeslite.config import Settings


def run_tui(
    settings: Settings,
    session_id: str | None = None,
    *,
    cwd: Path | None = None,
    store=None,
    notices: tuple[str, ...] = (),
    notes: list[str] | None = None,
    model_note: tuple[str, bool] | None = None,
    first_run: bool = False,
    mode: str | None = None,
) -> int:
    """Run the app until the user quits; returns the exit code. The session is saved as it goes.

    `notices` are warnings from start-up (an untrusted project config) shown in the chat; `notes`
    are lines about how the session was chosen, shown once the session is on screen; `model_note`
    says which model nobody named was picked (and whether that warrants a warning: the embedded one);
    `first_run` opens the screen that offers to connect a provider.
    """
    from .app import HermesApp

    app = HermesApp(
        settings,
        cwd=cwd or Path.cwd(),
        session_id=session_id,
        store=store,
        tune_gc=True,
        notices=notices,
        notes=notes,
        model_note=model_note,
        first_run=first_run,
        mode=mode,
    )
    code = app.run()
    if app.host.kept_session:  # the screen is gone: the way back is the last thing left on the terminal
        print(f"Session saved. Resume it with: hermeslite --resume {app.host.kept_session}", file=sys.stderr)
    return code if isinstance(code, int) else 0
