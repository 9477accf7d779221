"""A context window learned from the provider, kept in step between the model client and the store.

When a provider refuses a request as too long and states its limit, the client
adopts that window and the store keeps it for the model (store/windows.py), not
for the session that ran into it. Any session opened later on that model, in
this process or a new one, by /new, /resume, /handoff, --continue or a fresh
`-p`, starts from it: the meter, the threshold and preflight use it before the
first request, so nothing overflows a second time to learn it again, and the
window does not depend on how the session was opened.
"""

from __future__ import annotations

from hermeslite.context.compressor import ContextCompressor
from hermeslite.context.settings import CompressionConfig
from hermeslite.llm.types import LLMClient

from .saving import SessionSaver


def settle_window(llm: LLMClient, saver: SessionSaver, config: CompressionConfig) -> None:
    """Make the client and the store agree on `llm`'s learned window; call before reading the window.

    A window recorded for the model is adopted when it is smaller than the one
    looked up (the config's, litellm's table). A window the client learned that
    the store does not hold yet (its write failed) is recorded now. A
    `compression.context_length` in the config fixes the size, and wins over all.
    """
    if config.context_length:
        return
    stored = saver.learned_window(llm.model)
    if llm.learned_window and stored is None:
        saver.remember_window(llm.model, llm.learned_window)
    elif stored and stored < llm.context_window():
        llm.adopt_context_window(stored)


def learned_window_note(llm: LLMClient) -> str | None:
    """Where the window came from, when a provider's error set it; None for a looked-up window."""
    if not llm.learned_window:
        return None
    return f"{llm.learned_window:,} tokens, learned from the provider's context-length error"


def adopt_stated_window(limit: int | None, llm: LLMClient, compressor: ContextCompressor, saver: SessionSaver) -> bool:
    """A provider that states a real window smaller than the one in use is believed, once: the
    client and the engine adopt it, the store keeps it for the model, and the threshold follows. False when nothing
    changed (no limit stated, not smaller, or a `compression.context_length` fixes the size)."""
    if not limit or limit >= compressor.context_length or compressor.config.context_length:
        return False
    compressor.set_context_length(limit)
    llm.adopt_context_window(limit)
    saver.remember_window(llm.model, limit)
    return True
