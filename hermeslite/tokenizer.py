"""Exact token counts with tiktoken, working offline.

tiktoken downloads its BPE tables on first use, which fails on a machine with
no internet. litellm's wheel already ships cl100k/o200k/p50k tables, so we
point tiktoken's cache at them, found through the import system without
importing litellm (that import costs seconds). When nothing loads, counts fall
back to the rough estimate in `hermeslite.context.tokens`.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from .context.messages import Message, call_arguments, call_name, image_parts, text_of, tool_calls_of
from .context.tokens import IMAGE_TOKENS, MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_OVERHEAD_TOKENS, estimate_tokens

_PREFERRED_ENCODINGS = ("o200k_base", "cl100k_base")


def bundled_bpe_dir() -> Path | None:
    """The folder of BPE tables inside the installed litellm package, if any."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


@lru_cache(maxsize=1)
def _encoding() -> Any | None:
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        folder = bundled_bpe_dir()
        if folder is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    try:
        import tiktoken
    except ImportError:
        return None
    for name in _PREFERRED_ENCODINGS:
        try:
            return tiktoken.get_encoding(name)
        except Exception:  # offline failures surface as requests/OSError/ValueError
            continue
    return None


def exact_available() -> bool:
    return _encoding() is not None


def count_text(text: str) -> int:
    """Exact tokens of `text` when a tokenizer loads, else the rough estimate."""
    enc = _encoding()
    if enc is None:
        return estimate_tokens(text)
    return len(enc.encode(text, disallowed_special=()))


def count_message(msg: Message) -> int:
    content = msg.get("content")
    total = MESSAGE_OVERHEAD_TOKENS + count_text(text_of(content))
    total += IMAGE_TOKENS * image_parts(content)
    for call in tool_calls_of(msg):
        total += TOOL_CALL_OVERHEAD_TOKENS + count_text(call_name(call) + call_arguments(call))
    return total


def count_tokens(value: str | Message | Iterable[Message]) -> int:
    """Exact counterpart of `estimate_tokens` for a string, a message or a list."""
    if isinstance(value, str):
        return count_text(value)
    if isinstance(value, dict):
        return count_message(value)
    return sum(count_message(m) for m in value)
