"""Keeping Python's full garbage collections out of a streaming reply.

A full collection walks every tracked object. With litellm loaded that is
about 350,000 objects before the first message, 180 ms per collection on a
small machine, and the objects a long reply leaves behind add more: measured
by benchmarks/tui_bench.py, full collections were the only event-loop stalls
over 50 ms left while 10,000 tokens streamed. Textual itself turns the
collector off while it scrolls (`App.PAUSE_GC_ON_SCROLL`); this goes further
but keeps memory bounded:

- once the agent is loaded, everything alive is moved out of the collector's
  way with `gc.freeze()` (it lives as long as the app anyway);
- while text streams, only the young generations are collected (they catch
  most short-lived garbage and take a few milliseconds); full collections
  wait, at most MAX_PAUSE seconds;
- the deferred full collection runs once the reply has ended and the user
  has not touched a key for IDLE seconds.

Opt-in (`HermesApp(tune_gc=True)`, which `run_tui` uses): it changes
process-wide state that a test suite running many apps should not inherit.
"""

from __future__ import annotations

import gc
import time

MAX_PAUSE = 60.0  # seconds a stream may defer full collections
IDLE = 1.0  # seconds without a key press before the deferred collection
NO_FULL = 1_000_000  # third gc threshold while streaming: no automatic full collections


class GcPause:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._thresholds: tuple[int, int, int] | None = None
        self._since = 0.0
        self._streaming = False
        self.last_full_ms: float | None = None  # duration of the last deferred collection

    @property
    def deferring(self) -> bool:
        return self._thresholds is not None

    def start(self) -> None:
        """Text is streaming: young collections only, until the stream ends (or MAX_PAUSE)."""
        if not self.enabled:
            return
        self._streaming = True
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, NO_FULL)
            self._since = time.monotonic()
        elif time.monotonic() - self._since > MAX_PAUSE:
            self.collect()

    def stop(self) -> None:
        """The stream ended; the deferred collection waits for a quiet moment (`maybe_collect`)."""
        self._streaming = False

    def maybe_collect(self, idle_for: float) -> None:
        """Called on a timer: run the deferred full collection once nothing streams and keys are quiet."""
        if self._thresholds is not None and not self._streaming and idle_for >= IDLE:
            self.collect()

    def collect(self) -> None:
        started = time.perf_counter()
        gc.collect()
        self.last_full_ms = (time.perf_counter() - started) * 1000
        if self._streaming:
            self._since = time.monotonic()
        elif self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def freeze_loaded(self) -> None:
        """Everything alive now lives as long as the app: keep it out of future collections."""
        if self.enabled:
            gc.freeze()

    def restore(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
