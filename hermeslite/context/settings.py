"""The `compression:` settings block as a typed dataclass.

The field names are the YAML keys, so `CompressionConfig(**yaml_block)` is the
whole mapping; `hermeslite.config` adds file lookup and friendly errors on top.
Each field carries its allowed range in `metadata` so the loader can say what a
valid value looks like without a second table that could drift.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .fieldspec import AUTO, check_and_normalize, spec

# Bounds for the "auto" protected prune budget (tokens of recent tool output
# kept verbatim). 30% of the window, never less than 2k nor more than 100k.
PRUNE_PROTECT_RATIO = 0.30
PRUNE_PROTECT_MIN = 2_000
PRUNE_PROTECT_MAX = 100_000


@dataclass
class CompressionConfig:
    """Every knob of the compression engine; defaults are the documented ones."""

    enabled: bool = field(default=True, metadata=spec("bool", "compress automatically when the context fills up"))
    threshold: float | Literal["auto"] = field(
        default=AUTO,
        metadata=spec(
            "number_or_auto",
            "fraction of the context window at which compression starts "
            "(auto: 0.75 for windows under 512K tokens, else 0.50)",
            lo=0.05,
            hi=0.95,
        ),
    )
    threshold_tokens: int | None = field(
        default=200_000,
        metadata=spec(
            "whole_or_null",
            "upper limit on the compression threshold in tokens; null means no limit",
            lo=1_000,
            hi=100_000_000,
        ),
    )
    model_thresholds: dict[str, float] = field(
        default_factory=dict,
        metadata=spec(
            "fractions",
            "threshold fraction per model: model-name substring -> fraction; the longest match wins over `threshold`",
            lo=0.05,
            hi=0.95,
        ),
    )
    target_ratio: float = field(
        default=0.20, metadata=spec("number", "recent-tail budget as a fraction of the threshold", lo=0.05, hi=0.80)
    )
    protect_first_n: int = field(
        default=3,
        metadata=spec(
            "whole", "messages after the system prompt kept verbatim until the first compaction", lo=0, hi=50
        ),
    )
    protect_last_n: int = field(
        default=20,
        metadata=spec("whole", "upper bound on the minimum number of recent messages always kept", lo=1, hi=500),
    )
    max_passes: int = field(
        default=3, metadata=spec("whole", "compression passes per trigger before giving up", lo=1, hi=10)
    )
    summary_model: str | None = field(
        default=None, metadata=spec("model", "litellm model string for summaries; null means the main model")
    )
    summary_timeout: float = field(default=120, metadata=spec("number", "seconds to wait for a summary", lo=1, hi=3600))
    abort_on_summary_failure: bool = field(
        default=False,
        metadata=spec("bool", "keep the transcript unchanged instead of using the deterministic fallback"),
    )
    warn_at: float = field(
        default=0.85,
        metadata=spec("number", "fraction of the threshold at which the warning bar appears", lo=0.10, hi=1.0),
    )
    prune_protect_tokens: int | Literal["auto"] = field(
        default=AUTO,
        metadata=spec(
            "whole_or_auto",
            "recent tool output kept verbatim, in tokens (auto: 30% of the window, 2k-100k)",
            lo=0,
            hi=10_000_000,
        ),
    )
    prune_minimum_tokens: int | Literal["auto"] = field(
        default=AUTO,
        metadata=spec(
            "whole_or_auto",
            "prune only when it reclaims at least this many tokens (auto: half the protected budget)",
            lo=0,
            hi=10_000_000,
        ),
    )
    never_prune_tools: list[str] = field(
        default_factory=lambda: ["memory", "todo", "skill"],
        metadata=spec("names", "tools whose outputs are never pruned"),
    )
    context_length: int | None = field(
        default=None,
        metadata=spec("whole_or_null", "override the model's context window, in tokens", lo=512, hi=100_000_000),
    )
    min_summary_tokens: int = field(
        default=400,
        metadata=spec(
            "whole",
            "shortest checkpoint worth a model call; when the window leaves less, the checkpoint is built from "
            "recorded facts with no summary or memory-flush request (0: always ask the model)",
            lo=0,
            hi=12_000,
        ),
    )
    idle_compact: str = field(
        default="auto",
        metadata=spec(
            "choice",
            "auto compacts before a request when the session has been idle past the prompt cache's lifetime "
            "(model.cache_ttl; Claude's marked cache only), the context is over idle_share of the threshold "
            "and compacting costs less than sending the cold prefix again; off never does",
            choices=("auto", "off"),
        ),
    )
    idle_share: float = field(
        default=0.70,
        metadata=spec(
            "number", "share of the compaction threshold above which an idle session compacts", lo=0.10, hi=1.0
        ),
    )
    memory_flush: bool = field(
        default=True,
        metadata=spec(
            "bool", "save durable facts to memory at each compaction (in the checkpoint request when it can)"
        ),
    )
    todo_snapshot: bool = field(default=True, metadata=spec("bool", "re-inject the active todo list after compacting"))
    agent_tool: bool = field(
        default=False,
        metadata=spec(
            "bool",
            "offer the model a `context` tool: see its context's size, ask for a compaction at the end of a turn",
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)

    def protect_tokens_for(self, context_length: int) -> int:
        """Resolve `prune_protect_tokens`, turning "auto" into 30% of the window, clamped."""
        if self.prune_protect_tokens != AUTO:
            return int(self.prune_protect_tokens)
        return max(PRUNE_PROTECT_MIN, min(PRUNE_PROTECT_MAX, int(context_length * PRUNE_PROTECT_RATIO)))

    def minimum_prune_for(self, context_length: int) -> int:
        """Resolve `prune_minimum_tokens`; "auto" is half the protected budget."""
        if self.prune_minimum_tokens != AUTO:
            return int(self.prune_minimum_tokens)
        return self.protect_tokens_for(context_length) // 2
