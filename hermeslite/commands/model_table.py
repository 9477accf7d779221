"""How a model the /model list offers is written: name, where it comes from, window and price.

The TUI picker and the line chat's numbered list both write a choice with
these cells, so the two read the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from hermeslite.agent.model_list import ModelChoice
from hermeslite.display import format_tokens

SOURCES = {"configured": "configured", "current": "in use", "recent": "recent", "known": ""}


def window_cell(choice: ModelChoice) -> str:
    return f"{format_tokens(choice.context_window)} window" if choice.context_window else "window unknown"


def price_cell(choice: ModelChoice) -> str:
    """Dollars per million input / output tokens, as providers quote them."""
    if choice.input_per_million is None or choice.output_per_million is None:
        return "price unknown"
    return f"${_dollars(choice.input_per_million)} in / ${_dollars(choice.output_per_million)} out per Mtok"


def _dollars(amount: float) -> str:
    return f"{amount:.2f}" if amount >= 0.1 or amount == 0 else f"{amount:.3g}"


def choice_facts(choice: ModelChoice) -> str:
    """Everything but the name, on one line: `configured · 200k window · $3.00 in / $15.00 out per Mtok`."""
    return " · ".join(cell for cell in (SOURCES[choice.source], window_cell(choice), price_cell(choice)) if cell)


def numbered_list(choices: Sequence[ModelChoice]) -> str:
    """The line chat's /model list; `/model N` picks line N."""
    width = max((len(c.name) for c in choices), default=0)
    lines = [f"{i:>2}. {c.name:<{width}}  {choice_facts(c)}" for i, c in enumerate(choices, 1)]
    return "\n".join([*lines, "/model N or /model NAME switches."])
