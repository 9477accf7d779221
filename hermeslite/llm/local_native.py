"""Importing llama.cpp so that it never writes to the terminal.

llama.cpp logs from C straight to stderr, and its Python binding silences
model loading by pointing fd 1 and 2 at /dev/null, which blanks every frame a
Textual TUI draws meanwhile (Textual writes to fd 2) and races with other
threads. Here a `llama_log_set` callback routes every native line to the
`hermeslite.llm.llama_cpp` logger instead. The binding skips the redirect
when a model is loaded with `verbose=True` (its documented switch for
"print to stderr"); what it then prints from Python during the load goes to
`sys.stderr`, which `load_prints_to_log` points at the same logger for that
moment, and the caller sets `verbose` back to False once the model is loaded.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any

from .errors import FatalError

_NO_LLAMA = "The embedded model needs llama.cpp: pip install llama-cpp-python"

native_log = logging.getLogger("hermeslite.llm.llama_cpp")
native_log.addHandler(logging.NullHandler())  # never logging's last-resort print to stderr

_log_callback: Any = None  # the ctypes callback must outlive every call into llama.cpp
_log_pending: list[str] = []
_log_level = [1]  # level of the line being assembled (continuations arrive as level 5)
_LEVELS = {3: logging.WARNING, 4: logging.ERROR}  # ggml: 1 debug, 2 info, 3 warn, 4 error, 5 continued


def _on_native_log(level: int, text: bytes, _user_data: Any) -> None:
    try:  # an exception here would be printed to stderr by ctypes
        if not _log_pending and level != 5:
            _log_level[0] = level
        _log_pending.append(text.decode("utf-8", "replace"))
        if _log_pending[-1].endswith("\n"):
            line = "".join(_log_pending).rstrip()
            _log_pending.clear()
            native_log.log(_LEVELS.get(_log_level[0], logging.DEBUG), "%s", line)
    except BaseException:  # noqa: BLE001
        pass


def import_llama_cpp() -> Any:
    """Import llama_cpp with its native logging routed to Python before anything can print."""
    global _log_callback
    if "llama_cpp" not in sys.modules:
        # The wheel's CPU backend uses OpenMP; busy-waiting OpenMP threads on a
        # small, busy machine starve each other (and the UI). libgomp reads this
        # once when it loads; the environment is restored for child processes.
        had = "OMP_WAIT_POLICY" in os.environ
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import llama_cpp
        except ImportError as exc:
            raise FatalError(_NO_LLAMA) from exc
        finally:
            if not had:
                os.environ.pop("OMP_WAIT_POLICY", None)
    import llama_cpp

    if _log_callback is None:
        _log_callback = llama_cpp.llama_log_callback(_on_native_log)
        llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))
    return llama_cpp


class _LogLines(io.TextIOBase):
    """A text stream whose complete lines go to the llama.cpp logger."""

    def __init__(self) -> None:
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, self._partial = (self._partial + text).split("\n")
        for line in lines:
            if line.strip():
                native_log.debug("%s", line)
        return len(text)


@contextlib.contextmanager
def load_prints_to_log() -> Iterator[None]:
    """While a model loads with `verbose=True`: the binding's prints to `sys.stderr` go to the log.

    `sys.stderr` is process-wide, so for these few seconds a print from
    another thread is logged too rather than shown; nothing reaches fd 2.
    """
    lines = _LogLines()
    with contextlib.redirect_stderr(lines):
        yield
    lines.write("\n")
