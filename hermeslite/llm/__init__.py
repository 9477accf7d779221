"""The model layer: one `LLMClient` interface, a litellm backend and the embedded local model.

Importing this package never imports litellm (about 3 s); `prewarm()` starts
that import in the background and `ensure_loaded()` awaits it.
"""

from .classify import classify
from .errors import (
    AuthError,
    ContextOverflow,
    FatalError,
    IncompleteReply,
    LLMError,
    RateLimited,
    TransientError,
    Unreachable,
)
from .litellm_client import LiteLLMClient
from .setup import configure_environment, ensure_loaded, load_litellm, prewarm
from .types import Completed, Completion, LLMClient, RetryNotice, StreamedText, StreamEvent, Usage
from .window import DEFAULT_CONTEXT_WINDOW, lookup_context_window

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "AuthError",
    "Completed",
    "Completion",
    "ContextOverflow",
    "FatalError",
    "IncompleteReply",
    "LLMClient",
    "LLMError",
    "LiteLLMClient",
    "RateLimited",
    "RetryNotice",
    "StreamEvent",
    "StreamedText",
    "TransientError",
    "Unreachable",
    "Usage",
    "classify",
    "configure_environment",
    "ensure_loaded",
    "load_litellm",
    "lookup_context_window",
    "prewarm",
]
