"""Importing and configuring litellm: once, quietly, and off the event loop.

`import litellm` takes about 3 s, so nothing imports it at module scope. The
TUI calls `prewarm()` when it starts, which imports it in a daemon thread while
the user types; the first request awaits `ensure_loaded()`, which waits for
that import without blocking the event loop. Everything else calls
`load_litellm()` (blocking, idempotent, thread-safe) from code that already
runs off the loop or where blocking is fine.

litellm is loud by default: it prints "Give Feedback / Get Help" banners on
errors, attaches stream handlers to its loggers and may fetch its price map
from GitHub at import. Any byte written to stdout or stderr would corrupt the
TUI, so the environment is set before the import and the loggers are muted
after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import importlib.util
import logging
import os
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

# What the first request would otherwise import (the OpenAI SDK's resources: ~0.3 s), loaded with
# litellm instead: in the background in the app, and while the collector is off.
FIRST_REQUEST_MODULES = ("openai.resources", "anyio._backends._asyncio")
# litellm's own loggers (see litellm/_logging.py); "LiteLLM Proxy.stdout" propagates to its parent.
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")

_lock = threading.Lock()
_module: ModuleType | None = None
_prewarm_thread: threading.Thread | None = None


def configure_environment() -> None:
    """Environment litellm reads at import time; a value the user already set wins.

    - LITELLM_LOCAL_MODEL_COST_MAP: use the price/context map shipped in the
      wheel instead of fetching it from GitHub (5 s timeout and a retry thread
      when offline).
    - LITELLM_LOG: its handler level; ERROR keeps INFO/DEBUG chatter away.
    - TIKTOKEN_CACHE_DIR: the BPE tables bundled with litellm, so token
      counting works offline (tiktoken would download them on first use).
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        folder = bundled_bpe_dir()
        if folder is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)


def bundled_bpe_dir() -> Path | None:
    """The folder of BPE tables inside the installed litellm package, found without importing it."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


def load_litellm() -> ModuleType:
    """Import and configure litellm once; later calls return the same module at once.

    Raises ImportError when litellm is not installed (callers turn that into
    a FatalError the user can read).
    """
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            configure_environment()
            with _lean_import():
                import litellm  # the one place hermeslite imports it

                _quiet(litellm)
                for name in FIRST_REQUEST_MODULES:
                    with contextlib.suppress(ImportError):
                        importlib.import_module(name)
            _module = litellm
    return _module


@contextlib.contextmanager
def _lean_import() -> Iterator[None]:
    """Import litellm at about two thirds of its cost, with nothing about it changed.

    - The cyclic garbage collector is off during the import and what it built
      is frozen after it: an import creates ~300,000 long-lived objects and
      almost no garbage, and the collector's passes over them were a quarter of
      the import's CPU time (and, in the app, pauses of a few hundred ms that
      no key press could interrupt). Frozen objects are still freed by
      reference counting; they only skip the collector's scans, as Textual's
      and our own (`GcPause`) freezing after start-up already does.
    - Pydantic models defined during the import build their validators on
      first use instead of at class creation (pydantic's `defer_build`):
      litellm and the OpenAI SDK define ~2,600 models and a chat request uses
      a few dozen. The setting is restored at once, so models defined later
      (by us or another library) are built as usual.
    """
    import pydantic

    collecting = gc.isenabled()
    gc.disable()
    config = pydantic.BaseModel.model_config
    pydantic.BaseModel.model_config = pydantic.ConfigDict(**config, defer_build=True)
    try:
        yield
    finally:
        pydantic.BaseModel.model_config = config
        gc.freeze()
        if collecting:
            gc.enable()


def _quiet(litellm: Any) -> None:  # Any: these settings are plain module attributes ModuleType does not declare
    """Settings that keep litellm from printing, downloading or rejecting provider-specific params."""
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" on every mapped error
    litellm.disable_hf_tokenizer_download = True  # token_counter must not spend 20 s retrying HuggingFace offline
    litellm.drop_params = True  # drop OpenAI params a provider does not support instead of failing
    # litellm prices a stream before it starts by counting the prompt's tokens with tiktoken (loading
    # its tables costs ~0.3 s at the first request); we price each reply from the usage the provider
    # reports (completion_assembly.stream_cost), which this leaves untouched. With it off, a provider
    # that reports no usage leaves the count to our own calibrated estimate instead of a tiktoken
    # count dressed up as the provider's.
    litellm.disable_token_counter = True
    # litellm's default aiohttp transport keeps a session per event loop in a cache nobody closes: every
    # loop that ends (each `-p` run, each test) leaves one open, garbage-collected with an "Unclosed
    # client session" error, at interpreter exit through a litellm logging filter that fails on an
    # import ("sys.meta_path is None"). httpx's own transport has no such leftovers, and it honours
    # HTTPS_PROXY and NO_PROXY, which the aiohttp one ignores unless told to trust the environment.
    litellm.disable_aiohttp_transport = True
    litellm.set_verbose = False
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.ERROR)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        # A NullHandler keeps logging's last-resort handler (which writes to
        # stderr) from firing when nobody configured the root logger; records
        # still propagate to a file handler the application may install.
        logger.addHandler(logging.NullHandler())
    # Python prints warnings to stderr. litellm's own, and the ones pydantic raises while
    # building or serializing litellm's response types (ReadOnly TypedDict items, serializer
    # mismatches), say nothing a user can act on.
    warnings.filterwarnings("ignore", module=r"litellm(\..*)?$")
    warnings.filterwarnings("ignore", category=UserWarning, module=r"pydantic(\..*)?$")
    warnings.filterwarnings("ignore", message=r".*Pydantic serializer warnings.*")


def prewarm() -> None:
    """Start importing litellm in a daemon thread; returns at once. Calling it again does nothing."""
    global _prewarm_thread
    if _module is not None:
        return
    with _lock:
        if _prewarm_thread is not None:
            return
        _prewarm_thread = threading.Thread(target=_prewarm_target, name="litellm-prewarm", daemon=True)
        _prewarm_thread.start()


def _prewarm_target() -> None:
    # An uncaught thread exception prints to stderr; ensure_loaded() imports
    # again and raises the error where it can be reported.
    with contextlib.suppress(BaseException):
        load_litellm()


async def ensure_loaded() -> ModuleType:
    """litellm, importing it (or waiting for `prewarm`) in a worker thread so the event loop keeps running."""
    if _module is not None:
        return _module
    return await asyncio.to_thread(load_litellm)
