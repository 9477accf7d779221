"""The pure compression engine: no I/O, no imports from the layers above.

Everything the agent needs to keep a long session inside the model's window
is here and testable without a network; the LLM reaches it as an injected
async callable.
"""

from .checkpoint import Checkpoint, CheckpointEdit, current_checkpoint
from .compressor import ContextCompressor, Summarize
from .plan import Preview
from .pressure import Pressure, PressureLevel, measure_pressure
from .redact import redact_secrets
from .result import CompressionResult
from .sanitize import sanitize_tool_pairs
from .settings import CompressionConfig
from .summary_reply import SummaryReply
from .tokens import estimate_tokens

__all__ = [
    "Checkpoint",
    "CheckpointEdit",
    "CompressionConfig",
    "CompressionResult",
    "ContextCompressor",
    "Pressure",
    "PressureLevel",
    "Preview",
    "Summarize",
    "SummaryReply",
    "current_checkpoint",
    "estimate_tokens",
    "measure_pressure",
    "redact_secrets",
    "sanitize_tool_pairs",
]
